package dev.sluice.plugin.claude;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader and writer, so that the plugin needs nothing but the SPI and the JDK.
 *
 * <p>Reading maps JSON to {@link Map} (a {@link LinkedHashMap}, member order kept; a repeated name
 * keeps its last value), {@link List}, {@link String}, {@link Long} (or {@link BigInteger} when it
 * does not fit), {@link Double} (or {@link BigDecimal} when it overflows), {@link Boolean} and
 * {@code null}. It follows RFC 8259: no comments, no trailing commas, no trailing content, no raw
 * control characters in strings; nesting is bounded so hostile input cannot overflow the stack.
 *
 * <p>Writing accepts the same types (any {@link Number}, {@link Map} keys as strings) and escapes
 * strings so that the output is valid JSON and valid UTF-8 (a lone surrogate is written as a
 * {@code \\u} escape rather than turned into {@code ?} by the encoder).
 */
final class Json {

    /** Deepest nesting of arrays and objects the reader accepts. */
    static final int MAX_DEPTH = 512;

    private Json() {
    }

    /** The text is not valid JSON (or a value cannot be written as JSON). */
    static final class JsonException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        JsonException(String message) {
            super(message);
        }
    }

    // ---------------------------------------------------------------- reading

    /**
     * Parses one JSON value.
     *
     * @param text the JSON text
     * @return the value (map, list, string, number, boolean or null)
     * @throws JsonException when the text is not exactly one valid JSON value
     */
    static Object parse(String text) {
        return JsonReader.read(text);
    }

    /**
     * Parses a JSON text that must be an object.
     *
     * @param text the JSON text
     * @return the object
     * @throws JsonException when the text is not a valid JSON object
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new JsonException("expected a JSON object");
        }
        return (Map<String, Object>) v;
    }

    // ---------------------------------------------------------------- writing

    /**
     * Writes a value as compact JSON.
     *
     * @param value a map, list, string, number, boolean or null
     * @return the JSON text
     * @throws JsonException for a value of another type or a non-finite number
     */
    static String write(Object value) {
        StringBuilder sb = new StringBuilder(256);
        write(sb, value, 0);
        return sb.toString();
    }

    /**
     * Quotes and escapes a string as a JSON string literal.
     *
     * @param s the string
     * @return the literal, with quotes
     */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        writeString(sb, s);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object value, int depth) {
        if (depth > MAX_DEPTH) {
            throw new JsonException("nesting deeper than " + MAX_DEPTH);
        }
        switch (value) {
            case null -> sb.append("null");
            case String s -> writeString(sb, s);
            case Boolean b -> sb.append(b.booleanValue());
            case Double d -> writeFloating(sb, d);
            case Float f -> writeFloating(sb, f.doubleValue());
            case BigDecimal b -> sb.append(b.toString());
            case Number n -> sb.append(n.toString()); // Long, Integer, Short, Byte, BigInteger
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!(e.getKey() instanceof String key)) {
                        throw new JsonException("object member names must be strings");
                    }
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    writeString(sb, key);
                    sb.append(':');
                    write(sb, e.getValue(), depth + 1);
                }
                sb.append('}');
            }
            case List<?> l -> {
                sb.append('[');
                for (int i = 0; i < l.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(sb, l.get(i), depth + 1);
                }
                sb.append(']');
            }
            default -> throw new JsonException("cannot write a " + value.getClass().getName() + " as JSON");
        }
    }

    private static void writeFloating(StringBuilder sb, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new JsonException("JSON has no representation for " + d);
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            // 1.0 → 1: integral doubles are written as integers, as most JSON writers do
            sb.append((long) d);
        } else {
            sb.append(d);
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static void writeString(StringBuilder sb, String s) {
        sb.append('"');
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20) {
                        unicodeEscape(sb, c);
                    } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                        sb.append(c).append(s.charAt(++i));
                    } else if (Character.isSurrogate(c)) {
                        // a lone surrogate has no UTF-8 form: keep it as an escape instead of letting the encoder write '?'
                        unicodeEscape(sb, c);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    private static void unicodeEscape(StringBuilder sb, char c) {
        sb.append("\\u").append(HEX[(c >> 12) & 0xF]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
    }

    // ---------------------------------------------------------------- typed access helpers

    /**
     * A member of an object, if the value is an object.
     *
     * @param object any value
     * @param name member name
     * @return the member's value, or null
     */
    static Object get(Object object, String name) {
        return object instanceof Map<?, ?> m ? m.get(name) : null;
    }

    /**
     * A string member.
     *
     * @param object any value
     * @param name member name
     * @return the string, or null when absent or not a string
     */
    static String string(Object object, String name) {
        return get(object, name) instanceof String s ? s : null;
    }

    /**
     * An object member.
     *
     * @param object any value
     * @param name member name
     * @return the object, or null when absent or not an object
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object object, String name) {
        return get(object, name) instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    }

    /**
     * An array member.
     *
     * @param object any value
     * @param name member name
     * @return the list, or null when absent or not an array
     */
    static List<?> array(Object object, String name) {
        return get(object, name) instanceof List<?> l ? l : null;
    }

    /**
     * A numeric member as a long.
     *
     * @param object any value
     * @param name member name
     * @return the number, or null when absent or not a number
     */
    static Long number(Object object, String name) {
        return get(object, name) instanceof Number n ? n.longValue() : null;
    }

    /**
     * A changeable copy of a parsed JSON object, member order kept.
     *
     * @param object a map read by {@link #parse(String)}
     * @return a new {@link LinkedHashMap} with the same members
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> mutableObject(Map<?, ?> object) {
        return new LinkedHashMap<>((Map<String, Object>) object);
    }
}
