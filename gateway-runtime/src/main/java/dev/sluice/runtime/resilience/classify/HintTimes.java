package dev.sluice.runtime.resilience.classify;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The times and durations retry hints are written in (SPEC FC-3): plain seconds, Go-style
 * durations, HTTP dates, epoch seconds or milliseconds and ISO-8601 date-times. Nothing here
 * throws on malformed input: an unparseable value is empty.
 */
final class HintTimes {

    private static final Pattern DECIMAL = Pattern.compile("\\d{1,15}(?:\\.\\d{1,9})?");
    /** Values of {@code x-ratelimit-reset} above this are epoch milliseconds, else epoch seconds. */
    private static final long EPOCH_MILLIS_THRESHOLD = 10_000_000_000L;
    /**
     * Values of {@code x-ratelimit-reset} below this (2001-09-09 in epoch seconds) cannot be an
     * epoch and are read as seconds from now (Sluice; some gateways send a delta).
     */
    private static final long EPOCH_SECONDS_FLOOR = 1_000_000_000L;
    private static final Pattern GO_DURATION =
            Pattern.compile("(?:(\\d{1,9})h)?(?:(\\d{1,9})m(?!s))?(?:(\\d{1,9}(?:\\.\\d{1,9})?)s)?(?:(\\d{1,9})ms)?");

    private HintTimes() {
    }

    /** An RFC 3339 time or epoch seconds/ms: ms from now until then (0 when past). */
    static Optional<Long> parseResetTime(String value, long nowMillis) {
        String v = value.strip();
        if (DECIMAL.matcher(v).matches()) {
            return parseEpochReset(v, nowMillis);
        }
        return parseIsoInstant(v, null).map(at -> Math.max(0, at - nowMillis));
    }

    /**
     * An {@code x-ratelimit-reset} value: the epoch time of the reset, in seconds, or in
     * milliseconds when above 1e10; a value below 1e9 cannot be a current epoch and is read as
     * seconds from now. Ms until the reset (0 when past), or empty when unparseable.
     */
    static Optional<Long> parseEpochReset(String value, long nowMillis) {
        String v = value.strip();
        if (!DECIMAL.matcher(v).matches()) {
            return Optional.empty();
        }
        double n = Double.parseDouble(v);
        if (n < EPOCH_SECONDS_FLOOR) {
            return Optional.of((long) Math.ceil(n * 1000));
        }
        long at = n > EPOCH_MILLIS_THRESHOLD ? (long) n : (long) (n * 1000);
        return Optional.of(Math.max(0, at - nowMillis));
    }

    /**
     * A {@code Retry-After} value: seconds, an HTTP date, or a {@code 30s}/{@code 5m}/{@code 1h}
     * duration (checked after plain seconds, so {@code 5m} is 300 s, not 5 s). Ms to wait.
     */
    static Optional<Long> parseRetryAfter(String value, long nowMillis) {
        String v = value.strip();
        if (DECIMAL.matcher(v).matches()) {
            return Optional.of((long) Math.ceil(Double.parseDouble(v) * 1000));
        }
        try {
            long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
            return Optional.of(Math.max(0, at - nowMillis));
        } catch (DateTimeException notADate) {
            return parseDuration(v);
        }
    }

    /** A Go-style duration ({@code 1h2m3.5s}, {@code 20ms}) or plain seconds, in ms. */
    static Optional<Long> parseDuration(String value) {
        String v = value.strip();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (DECIMAL.matcher(v).matches()) {
            return Optional.of((long) Math.ceil(Double.parseDouble(v) * 1000));
        }
        Matcher m = GO_DURATION.matcher(v);
        if (!m.matches() || (m.group(1) == null && m.group(2) == null && m.group(3) == null && m.group(4) == null)) {
            return Optional.empty();
        }
        double ms = 0;
        if (m.group(1) != null) {
            ms += Long.parseLong(m.group(1)) * 3_600_000d;
        }
        if (m.group(2) != null) {
            ms += Long.parseLong(m.group(2)) * 60_000d;
        }
        if (m.group(3) != null) {
            ms += Double.parseDouble(m.group(3)) * 1000d;
        }
        if (m.group(4) != null) {
            ms += Long.parseLong(m.group(4));
        }
        return Optional.of((long) Math.ceil(ms));
    }

    /**
     * Parses an ISO-8601 date-time such as {@code 2026-01-01T00:00:30Z}, {@code 2026-01-01
     * 00:00:30+0800} or {@code 2026-01-01 00:00 utc}, in any case; a time without a zone is read in
     * {@code zoneIfAbsent}, or refused when that is null.
     */
    static Optional<Long> parseIsoInstant(String value, ZoneOffset zoneIfAbsent) {
        String v = value.strip().toUpperCase(Locale.ROOT).replaceFirst("\\s+(Z|UTC|[+-]\\d{2}:?\\d{2})$", "$1")
                .replace(' ', 'T');
        v = v.replaceFirst("UTC$", "Z").replaceFirst("([+-]\\d{2})(\\d{2})$", "$1:$2");
        try {
            if (zoneIfAbsent != null && !v.endsWith("Z") && !v.matches(".*[+-]\\d{2}:\\d{2}$")) {
                return Optional.of(LocalDateTime.parse(v).toInstant(zoneIfAbsent).toEpochMilli());
            }
            return Optional.of(OffsetDateTime.parse(v, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toEpochMilli());
        } catch (DateTimeException | ArithmeticException unparseable) {
            return Optional.empty();
        }
    }
}
