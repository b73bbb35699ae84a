package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Bounds on the strings of an admin body: what the admin API stores must come back as it was
 * sent, and a row must stay small enough to list. A lone UTF-16 surrogate ({@code "\ud800"} is
 * valid JSON) cannot be encoded in UTF-8 and would be stored as {@code ?}; a string of megabytes
 * would be copied into every listing. Both are refused with a 400 naming the field.
 */
final class AdminStrings {

    /** Longest string value (or object key) accepted anywhere in an admin body, in UTF-16 units. */
    static final int MAX_STRING_CHARS = 65_536;

    /** Longest display name of a connection or a client key, in UTF-16 units. */
    static final int MAX_NAME_CHARS = 256;

    private AdminStrings() {
    }

    /** Checks every string and key in the tree; throws a 400 naming the first offending field. */
    static void check(JsonNode node) {
        check(node, null);
    }

    /** Refuses a name longer than {@link #MAX_NAME_CHARS}. */
    static String name(String field, String value) {
        if (value != null && value.length() > MAX_NAME_CHARS) {
            throw ApiException.badRequest(field, "'" + field + "' is longer than " + MAX_NAME_CHARS + " characters.");
        }
        return value;
    }

    private static void check(JsonNode node, String path) {
        if (node.isTextual()) {
            checkText(node.asText(), path);
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                check(node.get(i), (path == null ? "" : path) + "[" + i + "]");
            }
        } else if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.properties().iterator();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String child = path == null ? e.getKey() : path + "." + e.getKey();
                checkText(e.getKey(), path == null ? e.getKey() : child);
                check(e.getValue(), child);
            }
        }
    }

    private static void checkText(String s, String path) {
        if (s.length() > MAX_STRING_CHARS) {
            throw ApiException.badRequest(shortPath(path), "'" + shortPath(path) + "' is longer than " + MAX_STRING_CHARS + " characters.");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw ApiException.badRequest(shortPath(path), "'" + shortPath(path)
                        + "' contains a lone UTF-16 surrogate (\\u" + Integer.toHexString(c) + "), which is not a character.");
            }
        }
    }

    /** A path made of a 64 KiB key is itself too long to echo. */
    private static String shortPath(String path) {
        return path == null ? null : path.length() > 200 ? path.substring(0, 200) + "…" : path;
    }
}
