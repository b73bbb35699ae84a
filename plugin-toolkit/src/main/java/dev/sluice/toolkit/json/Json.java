package dev.sluice.toolkit.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader and writer (RFC 8259) for plugins that depend on nothing but the SPI
 * and the JDK.
 *
 * <p>Reading maps JSON to {@code Map<String, Object>} (a {@link LinkedHashMap}, member order kept; a
 * repeated name keeps its last value), {@code List<Object>}, {@link String}, {@link Long} (integers
 * that fit), {@link BigInteger} (integers that do not), {@link BigDecimal} (every other number, its
 * value exact), {@link Boolean} and {@code null}. It rejects what JSON does not allow (comments,
 * trailing commas, single quotes, raw control characters, leading zeros, trailing content) and
 * nesting deeper than {@link #MAX_DEPTH}, so hostile input cannot exhaust the stack.
 *
 * <p>Writing accepts the same types, any {@link Number} and any {@link Iterable}; map keys must be
 * strings. Strings are escaped so that the output is valid JSON, valid JavaScript and valid UTF-8
 * (a lone surrogate is written as a {@code \\u} escape, not turned into {@code ?} by the encoder).
 * Integral doubles are written as integers ({@code 2.0} as {@code 2}).
 */
public final class Json {

    /** Deepest nesting of arrays and objects the reader accepts and the writer produces. */
    public static final int MAX_DEPTH = 512;

    private Json() {
    }

    // ---------------------------------------------------------------- reading

    /**
     * Parses one JSON value.
     *
     * @param text the JSON text
     * @return the value (map, list, string, number, boolean, or null for {@code null})
     * @throws JsonException when the text is null or not exactly one JSON value
     */
    public static Object parse(String text) {
        return JsonReader.read(text);
    }

    /**
     * Parses a JSON text that must be an object.
     *
     * @param text the JSON text
     * @return the object
     * @throws JsonException when the text is not a JSON object
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) {
            throw new JsonException("expected a JSON object", 0);
        }
        return (Map<String, Object>) v;
    }

    // ---------------------------------------------------------------- writing

    /**
     * Writes a value as compact JSON.
     *
     * @param value a map, iterable, string, number, boolean or null
     * @return the JSON text
     * @throws JsonException for a value of another type, a non-string key, a non-finite number or
     *     nesting deeper than {@link #MAX_DEPTH} (a cycle)
     */
    public static String write(Object value) {
        StringBuilder sb = new StringBuilder(256);
        write(sb, value);
        return sb.toString();
    }

    /**
     * Appends a value as compact JSON.
     *
     * @param sb where to write
     * @param value the value
     * @throws JsonException as {@link #write(Object)}
     */
    public static void write(StringBuilder sb, Object value) {
        write(sb, value, 0);
    }

    private static void write(StringBuilder sb, Object value, int depth) {
        if (depth > MAX_DEPTH) {
            throw new JsonException("nesting deeper than " + MAX_DEPTH + " (a cycle?)");
        }
        switch (value) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Boolean b -> sb.append(b.booleanValue());
            case Double d -> writeFloating(sb, d);
            case Float f -> writeFloating(sb, f.doubleValue());
            case Number n -> sb.append(n.toString()); // Long, Integer, Short, Byte, BigInteger, BigDecimal
            case Map<?, ?> m -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!(e.getKey() instanceof String key)) {
                        throw new JsonException("object member names must be strings, not " + e.getKey());
                    }
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    quote(sb, key);
                    sb.append(':');
                    write(sb, e.getValue(), depth + 1);
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
                    write(sb, o, depth + 1);
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
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        quote(sb, s);
        return sb.toString();
    }

    /**
     * Appends a string as a JSON string literal: quotes, backslashes and control characters are
     * escaped; U+2028/U+2029 and unpaired surrogates too.
     *
     * @param sb where to write
     * @param s the string
     */
    public static void quote(StringBuilder sb, String s) {
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

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static String unicodeEscape(char c) {
        return new String(new char[] {'\\', 'u', HEX[(c >> 12) & 0xF], HEX[(c >> 8) & 0xF], HEX[(c >> 4) & 0xF], HEX[c & 0xF]});
    }

    // ---------------------------------------------------------------- navigation helpers

    /**
     * A member of a value, if the value is an object.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member, or null
     */
    public static Object get(Object value, String name) {
        return value instanceof Map<?, ?> m ? m.get(name) : null;
    }

    /**
     * An object member.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is an object, else null
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object value, String name) {
        return get(value, name) instanceof Map<?, ?> m ? (Map<String, Object>) m : null;
    }

    /**
     * An array member.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is an array, else an empty list (use {@link #get} to tell
     *     absent from empty)
     */
    @SuppressWarnings("unchecked")
    public static List<Object> array(Object value, String name) {
        return get(value, name) instanceof List<?> l ? (List<Object>) l : List.of();
    }

    /**
     * A string member.
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is a string, else null
     */
    public static String string(Object value, String name) {
        return get(value, name) instanceof String s ? s : null;
    }

    /**
     * A number member as a long (a fraction is cut off).
     *
     * @param value any parsed value
     * @param name member name
     * @return the member when it is a number, else null
     */
    public static Long number(Object value, String name) {
        return get(value, name) instanceof Number n ? n.longValue() : null;
    }

    /**
     * Whether a member is the boolean {@code true}.
     *
     * @param value any parsed value
     * @param name member name
     * @return true only for a literal {@code true}
     */
    public static boolean isTrue(Object value, String name) {
        return Boolean.TRUE.equals(get(value, name));
    }

    /**
     * A changeable copy of a parsed object, member order kept.
     *
     * @param object a map read by {@link #parse(String)}
     * @return a new {@link LinkedHashMap} with the same members
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> mutableObject(Map<?, ?> object) {
        return new LinkedHashMap<>((Map<String, Object>) object);
    }
}
