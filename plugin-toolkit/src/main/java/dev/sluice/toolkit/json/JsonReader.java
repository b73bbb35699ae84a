package dev.sluice.toolkit.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The reading half of {@link Json}: a strict RFC 8259 parser over one text, bounded to
 * {@link Json#MAX_DEPTH} levels of nesting.
 */
final class JsonReader {

    private static final int MAX_DEPTH = Json.MAX_DEPTH;

    private final String text;
    private int pos;

    private JsonReader(String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value.
     *
     * @param text the JSON text
     * @return the value (possibly null for {@code null})
     * @throws JsonException when the text is not exactly one JSON value
     */
    static Object read(String text) {
        if (text == null) {
            throw new JsonException("no JSON text", 0);
        }
        JsonReader p = new JsonReader(text);
        p.skipWhitespace();
        Object value = p.readValue(0);
        p.skipWhitespace();
        if (p.pos != text.length()) {
            throw new JsonException("unexpected content after the JSON value", p.pos);
        }
        return value;
    }

    private Object readValue(int depth) {
        if (pos >= text.length()) {
            throw new JsonException("unexpected end of JSON text", pos);
        }
        char c = text.charAt(pos);
        return switch (c) {
            case '{' -> readObject(depth + 1);
            case '[' -> readArray(depth + 1);
            case '"' -> readString();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    yield readNumber();
                }
                throw new JsonException("unexpected character '" + printable(c) + "'", pos);
            }
        };
    }

    private Map<String, Object> readObject(int depth) {
        checkDepth(depth);
        pos++; // {
        Map<String, Object> map = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return map;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw new JsonException("expected a member name", pos);
            }
            String name = readString();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            map.put(name, readValue(depth));
            skipWhitespace();
            char c = next();
            if (c == '}') {
                return map;
            }
            if (c != ',') {
                throw new JsonException("expected ',' or '}'", pos - 1);
            }
        }
    }

    private List<Object> readArray(int depth) {
        checkDepth(depth);
        pos++; // [
        List<Object> list = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return list;
        }
        while (true) {
            skipWhitespace();
            list.add(readValue(depth));
            skipWhitespace();
            char c = next();
            if (c == ']') {
                return list;
            }
            if (c != ',') {
                throw new JsonException("expected ',' or ']'", pos - 1);
            }
        }
    }

    private String readString() {
        pos++; // opening quote
        StringBuilder sb = null;
        int start = pos;
        while (true) {
            if (pos >= text.length()) {
                throw new JsonException("unterminated string", start - 1);
            }
            char c = text.charAt(pos);
            if (c == '"') {
                String s = sb == null ? text.substring(start, pos) : sb.append(text, start, pos).toString();
                pos++;
                return s;
            }
            if (c < 0x20) {
                throw new JsonException("unescaped control character in string", pos);
            }
            if (c == '\\') {
                if (sb == null) {
                    sb = new StringBuilder(pos - start + 16);
                }
                sb.append(text, start, pos);
                pos++;
                if (pos >= text.length()) {
                    throw new JsonException("unterminated escape", pos);
                }
                char e = text.charAt(pos++);
                switch (e) {
                    case '"' -> sb.append('"');
                    case '\\' -> sb.append('\\');
                    case '/' -> sb.append('/');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> sb.append(readHex4());
                    default -> throw new JsonException("invalid escape '\\" + printable(e) + "'", pos - 1);
                }
                start = pos;
            } else {
                pos++;
            }
        }
    }

    private char readHex4() {
        if (pos + 4 > text.length()) {
            throw new JsonException("incomplete \\u escape", pos);
        }
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(text.charAt(pos + i), 16);
            if (d < 0) {
                throw new JsonException("invalid \\u escape", pos);
            }
            v = v * 16 + d;
        }
        pos += 4;
        return (char) v;
    }

    private Number readNumber() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            while (isDigit(peek())) {
                pos++;
            }
        } else {
            throw new JsonException("invalid number", start);
        }
        boolean integral = true;
        if (peek() == '.') {
            integral = false;
            pos++;
            if (!isDigit(peek())) {
                throw new JsonException("invalid number: digit expected after '.'", pos);
            }
            while (isDigit(peek())) {
                pos++;
            }
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!isDigit(peek())) {
                throw new JsonException("invalid number: digit expected in exponent", pos);
            }
            while (isDigit(peek())) {
                pos++;
            }
        }
        String literal = text.substring(start, pos);
        if (integral) {
            // leading zeros: "01" stops after "0" and fails as trailing content or a missing ','
            if (literal.length() <= 18) {
                return Long.parseLong(literal);
            }
            BigInteger big = new BigInteger(literal);
            return big.bitLength() < 64 ? (Number) big.longValue() : big;
        }
        // exact: a relayed 0.1 stays 0.1, and 1e400 does not become Infinity
        return new BigDecimal(literal);
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw new JsonException("unexpected token", pos);
        }
        pos += word.length();
        return value;
    }

    private void checkDepth(int depth) {
        if (depth > MAX_DEPTH) {
            throw new JsonException("nesting deeper than " + MAX_DEPTH, pos);
        }
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private char next() {
        if (pos >= text.length()) {
            throw new JsonException("unexpected end of JSON text", pos);
        }
        return text.charAt(pos++);
    }

    private void expect(char c) {
        if (next() != c) {
            throw new JsonException("expected '" + c + "'", pos - 1);
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static String printable(char c) {
        return c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c);
    }
}
