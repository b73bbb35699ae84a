package dev.sluice.runtime.http;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/** The time parameters of the admin views ({@code from}, {@code to}): one reading for all of them. */
final class QueryTimes {

    private QueryTimes() {
    }

    /**
     * Epoch ms, an ISO-8601 instant, or a UTC date ({@code endOfDay}: the end of that day).
     *
     * @param v the value
     * @param name the parameter, named by the 400
     * @param endOfDay whether a date means its end (a {@code to})
     * @return epoch ms
     */
    static long parse(String v, String name, boolean endOfDay) {
        String s = v.strip();
        try {
            if (!s.isEmpty() && s.chars().allMatch(Character::isDigit)) {
                return Long.parseLong(s);
            }
            if (s.length() == 10) {
                LocalDate d = LocalDate.parse(s);
                return (endOfDay ? d.plusDays(1) : d).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            }
            return Instant.parse(s).toEpochMilli();
        } catch (DateTimeParseException | NumberFormatException e) {
            throw ApiException.badRequest(name, "'" + name + "' must be epoch milliseconds, an ISO-8601 instant"
                    + " (2026-01-31T00:00:00Z) or a UTC date (2026-01-31).");
        }
    }
}
