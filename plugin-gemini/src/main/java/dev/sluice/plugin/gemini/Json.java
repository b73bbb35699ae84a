package dev.sluice.plugin.gemini;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader and writer (RFC 8259), so that the plugin depends on nothing but the
 * SPI and the JDK.
 *
 * <p>Values map to {@code Map<String, Object>} (a {@link LinkedHashMap}, member order kept; a
 * repeated name keeps its last value), {@code List<Object>}, {@code String}, {@code Long} (integers
 * that fit), {@code BigDecimal} (every other number, its text kept exactly), {@code Boolean} and
 * {@code null}. The reader rejects what JSON does not allow (comments, trailing commas, single
 * quotes, unescaped control characters, leading zeros, trailing content) and nesting deeper than
 * {@link #MAX_DEPTH}, so a hostile body cannot exhaust the stack.
 */
final class Json {

    /** Deepest nesting the reader accepts. */
    static final int MAX_DEPTH = 256;

    private Json() {
    }

    // ---------------------------------------------------------------- reading

    /**
     * Parses one JSON value.
     *
     * @param text the JSON text
     * @return the value (possibly null for {@code null})
     * @throws JsonException when the text is not exactly one JSON value
     */
    static Object parse(String text) {
        return JsonReader.read(text);
    }

    /**
     * Parses a JSON object.
     *
     * @param text the JSON text
     * @return the object
     * @throws JsonException when the text is not a JSON object
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new JsonException("expected a JSON object", 0);
        }
        return (Map<String, Object>) v;
    }

    // ---------------------------------------------------------------- writing

    /**
     * Serialises a value built from maps, lists, strings, numbers, booleans and null.
     *
     * @param value the value
     * @return compact JSON text
     * @throws IllegalArgumentException for a value of another type or a non-finite number
     */
    static String write(Object value) {
        StringBuilder sb = new StringBuilder(256);
        write(sb, value);
        return sb.toString();
    }

    /**
     * Appends a value's JSON text.
     *
     * @param sb where to write
     * @param value the value
     */
    static void write(StringBuilder sb, Object value) {
        switch (value) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Boolean b -> sb.append(b.booleanValue());
            case Long l -> sb.append(l.longValue());
            case Integer i -> sb.append(i.intValue());
            case Short s -> sb.append(s.shortValue());
            case Byte b -> sb.append(b.byteValue());
            case BigInteger b -> sb.append(b);
            case BigDecimal d -> sb.append(d);
            case Double d -> appendFloating(sb, d);
            case Float f -> appendFloating(sb, f.doubleValue());
            case Map<?, ?> map -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    quote(sb, String.valueOf(e.getKey()));
                    sb.append(':');
                    write(sb, e.getValue());
                }
                sb.append('}');
            }
            case Iterable<?> list -> {
                sb.append('[');
                boolean first = true;
                for (Object o : list) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    write(sb, o);
                }
                sb.append(']');
            }
            default -> throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
        }
    }

    private static void appendFloating(StringBuilder sb, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new IllegalArgumentException("JSON has no representation for " + d);
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            sb.append((long) d); // 2.0 → 2: what JSON producers usually write
        } else {
            sb.append(d);
        }
    }

    /**
     * A string as a JSON string literal.
     *
     * @param s the string
     * @return the quoted, escaped literal
     */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        quote(sb, s);
        return sb.toString();
    }

    /**
     * Appends a string as a JSON string literal: quotes, backslashes and control characters are
     * escaped; U+2028/U+2029 and unpaired surrogates too, so the output is valid JSON, valid
     * JavaScript and encodes to UTF-8 without loss.
     *
     * @param sb where to write
     * @param s the string
     */
    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        int n = s.length();
        int plainFrom = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            String escape = null;
            if (c == '"') {
                escape = "\\\"";
            } else if (c == '\\') {
                escape = "\\\\";
            } else if (c < 0x20) {
                escape = switch (c) {
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\t' -> "\\t";
                    case '\b' -> "\\b";
                    case '\f' -> "\\f";
                    default -> unicodeEscape(c);
                };
            } else if (c == '\u2028' || c == '\u2029') {
                escape = unicodeEscape(c);
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++; // a proper pair stays as it is
                } else {
                    escape = unicodeEscape(c);
                }
            } else if (Character.isLowSurrogate(c)) {
                escape = unicodeEscape(c);
            }
            if (escape != null) {
                sb.append(s, plainFrom, i).append(escape);
                plainFrom = i + 1;
            }
        }
        sb.append(s, plainFrom, n).append('"');
    }

    private static String unicodeEscape(char c) {
        return String.format("\\u%04x", (int) c);
    }

    // ---------------------------------------------------------------- navigation helpers

    /**
     * A member of a value if the value is an object.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member, or null
     */
    static Object member(Object value, String name) {
        return value instanceof Map<?, ?> m ? m.get(name) : null;
    }

    /**
     * An object member of an object.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is an object, else null
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value, String name) {
        return member(value, name) instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    }

    /**
     * An array member of an object.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is an array, else an empty list
     */
    @SuppressWarnings("unchecked")
    static List<Object> array(Object value, String name) {
        return member(value, name) instanceof List<?> l ? (List<Object>) l : List.of();
    }

    /**
     * A string member of an object.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is a string, else null
     */
    static String string(Object value, String name) {
        return member(value, name) instanceof String s ? s : null;
    }

    /**
     * A number member of an object as a long.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is a number, else null
     */
    static Long integer(Object value, String name) {
        return member(value, name) instanceof Number n ? n.longValue() : null;
    }

    /**
     * Whether a member is the boolean {@code true}.
     *
     * @param value any parsed value
     * @param name member name
     * @return true only for a literal {@code true}
     */
    static boolean isTrue(Object value, String name) {
        return Boolean.TRUE.equals(member(value, name));
    }
}
