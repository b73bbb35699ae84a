package dev.sluice.runtime.io;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.util.Set;

/**
 * Rewrites one top-level string field of a JSON object in place, byte for byte around it (issue
 * 26): a passed-through body (Anthropic Messages, the Responses API) differs from the client's only
 * in {@code model}, so it is spliced instead of parsed into a tree a second time and written again —
 * on a coding agent's 100 KB+ bodies that was the most expensive thing the gateway did per request.
 * The scan only finds where top-level values start and end (strings, nesting); the body was already
 * parsed and validated by the request's reader. Anything unusual (the field absent, repeated, not a
 * string, a key written with escapes, a field that must not be kept) answers null, and the caller
 * falls back to its tree.
 */
public final class TopLevelFields {

    private TopLevelFields() {
    }

    /**
     * The body with the string value of top-level {@code name} replaced.
     *
     * @param json a JSON object, UTF-8
     * @param name the field (plain ASCII)
     * @param value its new value
     * @param refused top-level fields whose presence makes the caller fall back (e.g. one it removes)
     * @return the new body, or null when this cannot splice it
     */
    public static byte[] withString(byte[] json, String name, String value, Set<String> refused) {
        int[] at = find(json, name, refused);
        if (at == null) {
            return null;
        }
        byte[] quoted = JsonStringEncoder.getInstance().quoteAsUTF8(value);
        byte[] out = new byte[at[0] + quoted.length + 2 + (json.length - at[1])];
        System.arraycopy(json, 0, out, 0, at[0]);
        int p = at[0];
        out[p++] = '"';
        System.arraycopy(quoted, 0, out, p, quoted.length);
        p += quoted.length;
        out[p++] = '"';
        System.arraycopy(json, at[1], out, p, json.length - at[1]);
        return out;
    }

    /** [start, end) of the field's string value, quotes included; null when it cannot be spliced. */
    static int[] find(byte[] b, String name, Set<String> refused) {
        int n = b.length;
        int i = skipSpace(b, 0);
        if (i >= n || b[i] != '{') {
            return null;
        }
        i = skipSpace(b, i + 1);
        if (i < n && b[i] == '}') {
            return null;
        }
        int[] found = null;
        while (i < n) {
            if (b[i] != '"') {
                return null;
            }
            int keyStart = i + 1;
            int keyEnd = keyStart;
            while (keyEnd < n && b[keyEnd] != '"') {
                if (b[keyEnd] == '\\') {
                    return null;
                }
                keyEnd++;
            }
            if (keyEnd >= n) {
                return null;
            }
            i = skipSpace(b, keyEnd + 1);
            if (i >= n || b[i] != ':') {
                return null;
            }
            int valueStart = skipSpace(b, i + 1);
            int valueEnd = skipValue(b, valueStart);
            if (valueEnd < 0) {
                return null;
            }
            if (is(b, keyStart, keyEnd, name)) {
                if (found != null || b[valueStart] != '"') {
                    return null;
                }
                found = new int[] {valueStart, valueEnd};
            } else if (!refused.isEmpty() && refused.contains(new String(b, keyStart, keyEnd - keyStart, java.nio.charset.StandardCharsets.UTF_8))) {
                return null;
            }
            i = skipSpace(b, valueEnd);
            if (i >= n) {
                return null;
            }
            if (b[i] == '}') {
                return skipSpace(b, i + 1) == n ? found : null;
            }
            if (b[i] != ',') {
                return null;
            }
            i = skipSpace(b, i + 1);
        }
        return null;
    }

    private static boolean is(byte[] b, int from, int to, String name) {
        if (to - from != name.length()) {
            return false;
        }
        for (int k = 0; k < name.length(); k++) {
            if (b[from + k] != name.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static int skipSpace(byte[] b, int i) {
        while (i < b.length && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) {
            i++;
        }
        return i;
    }

    /** The index after the value starting at {@code i}, or -1 when it does not end in the body. */
    private static int skipValue(byte[] b, int i) {
        int n = b.length;
        if (i >= n) {
            return -1;
        }
        byte c = b[i];
        if (c == '"') {
            return skipString(b, i);
        }
        if (c == '{' || c == '[') {
            int depth = 0;
            while (i < n) {
                byte x = b[i];
                if (x == '"') {
                    i = skipString(b, i);
                    if (i < 0) {
                        return -1;
                    }
                    continue;
                }
                if (x == '{' || x == '[') {
                    depth++;
                } else if (x == '}' || x == ']') {
                    depth--;
                    if (depth == 0) {
                        return i + 1;
                    }
                }
                i++;
            }
            return -1;
        }
        // a number, true, false or null: up to the next delimiter
        while (i < n && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\n' && b[i] != '\r' && b[i] != '\t') {
            i++;
        }
        return i;
    }

    /** The index after the string whose opening quote is at {@code i}, or -1. */
    private static int skipString(byte[] b, int i) {
        int n = b.length;
        i++;
        while (i < n) {
            byte x = b[i];
            if (x == '\\') {
                i += 2;
                continue;
            }
            if (x == '"') {
                return i + 1;
            }
            i++;
        }
        return -1;
    }
}
