package dev.sluice.runtime.resilience;

import dev.sluice.api.upstream.ResponseHead;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads upstream retry hints from headers (SPEC FC-3): {@code Retry-After} (seconds or HTTP date)
 * and the {@code x-ratelimit-reset-*} durations ({@code 1s}, {@code 6m0s}, {@code 20ms}).
 * Unparseable hints are ignored, never an error.
 */
public final class RetryHints {

    private static final Pattern DECIMAL = Pattern.compile("\\d{1,15}(?:\\.\\d{1,9})?");
    /** Values of {@code x-ratelimit-reset} above this are epoch milliseconds, else epoch seconds. */
    private static final long EPOCH_MILLIS_THRESHOLD = 10_000_000_000L;
    private static final Pattern DURATION = Pattern.compile("(?:(\\d+)h)?(?:(\\d+)m(?!s))?(?:(\\d+(?:\\.\\d+)?)s)?(?:(\\d+)ms)?");

    private RetryHints() {
    }

    /**
     * The retry hint of a response, in ms.
     *
     * @param head the response head
     * @param nowMillis the current time (for HTTP dates)
     * @return the hint, or empty
     */
    public static Optional<Long> fromHeaders(ResponseHead head, long nowMillis) {
        Optional<Long> retryAfter = head.first("retry-after").flatMap(v -> parseRetryAfter(v, nowMillis));
        if (retryAfter.isPresent()) {
            return retryAfter;
        }
        for (String h : new String[] {"x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"}) {
            Optional<Long> d = head.first(h).flatMap(RetryHints::parseDuration);
            if (d.isPresent()) {
                return d;
            }
        }
        return head.first("x-ratelimit-reset").flatMap(v -> parseEpochReset(v, nowMillis));
    }

    /**
     * Parses an {@code x-ratelimit-reset} value: the epoch time of the reset, in seconds, or in
     * milliseconds when above 1e10.
     *
     * @param value the header value
     * @param nowMillis the current time
     * @return ms until the reset (0 when past), or empty when unparseable
     */
    public static Optional<Long> parseEpochReset(String value, long nowMillis) {
        String v = value.strip();
        if (!DECIMAL.matcher(v).matches()) {
            return Optional.empty();
        }
        double n = Double.parseDouble(v);
        long at = n > EPOCH_MILLIS_THRESHOLD ? (long) n : (long) (n * 1000);
        return Optional.of(Math.max(0, at - nowMillis));
    }

    /**
     * Parses a {@code Retry-After} value.
     *
     * @param value seconds or an HTTP date
     * @param nowMillis the current time
     * @return ms to wait, or empty when unparseable
     */
    public static Optional<Long> parseRetryAfter(String value, long nowMillis) {
        String v = value.strip();
        if (DECIMAL.matcher(v).matches()) {
            return Optional.of((long) Math.ceil(Double.parseDouble(v) * 1000));
        }
        try {
            long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
            return Optional.of(Math.max(0, at - nowMillis));
        } catch (DateTimeParseException notADate) {
            return Optional.empty();
        }
    }

    /**
     * Parses a Go-style duration ({@code 1h2m3.5s}, {@code 20ms}) or plain seconds.
     *
     * @param value the value
     * @return ms, or empty
     */
    public static Optional<Long> parseDuration(String value) {
        String v = value.strip();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (DECIMAL.matcher(v).matches()) {
            return Optional.of((long) Math.ceil(Double.parseDouble(v) * 1000));
        }
        Matcher m = DURATION.matcher(v);
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
}
