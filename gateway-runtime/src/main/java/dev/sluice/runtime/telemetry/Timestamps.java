package dev.sluice.runtime.telemetry;

import java.time.Instant;

/**
 * ISO-8601 UTC instants as {@link Instant#toString()} writes them, for the access log, without a
 * formatter per line (issue 26): the text up to the second is kept for the current second and the
 * milliseconds appended.
 */
final class Timestamps {

    /** The second whose text is kept, and the text ({@code 2026-12-04T15:00:18}). */
    private record Second(long epochSecond, String text) {
    }

    private static volatile Second last = new Second(Long.MIN_VALUE, "");

    private Timestamps() {
    }

    /**
     * Appends the instant exactly as {@code Instant.ofEpochMilli(ms).toString()} would.
     *
     * @param b where to
     * @param epochMs the instant
     */
    static void appendInstant(StringBuilder b, long epochMs) {
        long second = Math.floorDiv(epochMs, 1000);
        int millis = (int) Math.floorMod(epochMs, 1000);
        Second s = last;
        if (s.epochSecond() != second) {
            String full = Instant.ofEpochSecond(second).toString();
            // years past 9999 or before 0 are not cached in the usual shape; fall back to the JDK
            if (full.length() != 20 || full.charAt(19) != 'Z') {
                b.append(Instant.ofEpochMilli(epochMs));
                return;
            }
            s = new Second(second, full.substring(0, 19));
            last = s;
        }
        b.append(s.text());
        if (millis != 0) {
            b.append('.').append((char) ('0' + millis / 100)).append((char) ('0' + millis / 10 % 10)).append((char) ('0' + millis % 10));
        }
        b.append('Z');
    }
}
