package dev.sluice.runtime.telemetry;

/**
 * JSON string literals appended to a {@link StringBuilder}: what the access log needs to write a
 * line without a generator (issue 26). Escapes exactly what RFC 8259 requires — the quote, the
 * backslash and the control characters — and, like Jackson's default, writes everything else as
 * is; a lone surrogate is written as {@code \\uXXXX} so a line is always valid UTF-8.
 */
final class JsonText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private JsonText() {
    }

    /**
     * Appends {@code value} as a JSON string literal, quotes included.
     *
     * @param b where to
     * @param value the text
     */
    static void string(StringBuilder b, String value) {
        b.append('"');
        int n = value.length();
        int plain = 0;
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\' && !Character.isSurrogate(c)) {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
                continue;
            }
            b.append(value, plain, i);
            plain = i + 1;
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> b.append("\\u").append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF]).append(HEX[c >> 4 & 0xF]).append(HEX[c & 0xF]);
            }
        }
        b.append(value, plain, n).append('"');
    }
}
