package dev.sluice.runtime.resilience.classify;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.runtime.resilience.classify.Verdict.HintSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads upstream retry hints (SPEC FC-3): response headers, a structured hint the executor read
 * ({@link RetryHint}), JSON fields of the body and natural-language body text. Every hint is
 * capped (CC-2): "retry in"-style durations at {@link #MAX_RETRY_IN_MS}, announced resets and
 * header values at {@link #MAX_RESET_MS}. Unparseable hints are ignored, never an error: no method
 * here throws on any input, however malformed or large.
 *
 * <p>This class is the entry point and fixes the order; each source has its reader:
 * {@link HeaderRetryHints}, {@link BodyJsonRetryHints}, {@link BodyTextRetryHints}, all reading
 * times and durations through {@link HintTimes}.
 */
public final class RetryHints {

    /** Cap of "retry in"-style hints: Google {@code RetryInfo}, "retry after 17s", {@code retry_after_ms} (24 h). */
    public static final long MAX_RETRY_IN_MS = 86_400_000L;
    /** Cap of announced resets ("resets at …", "resets in 3 days") and of header hints (30 days, BO-5). */
    public static final long MAX_RESET_MS = 2_592_000_000L;

    /**
     * A hint found in a failure.
     *
     * @param ms how long to wait, already capped, ≥ 0
     * @param source where it came from
     * @param announcedReset whether the upstream announced when a limit resets (a reset time,
     *     "resets in …", a header) rather than saying how long to back off ("retry in 17s");
     *     only a "retry in" window of the body can make a quota-worded 429 a rate limit (FC-2)
     */
    public record Hint(long ms, HintSource source, boolean announcedReset) {

        /** Validates. */
        public Hint {
            Objects.requireNonNull(source, "source is null");
            if (ms < 0) {
                throw new IllegalArgumentException("ms is negative");
            }
        }

        /**
         * @return whether this is a back-off window declared in the body (not a header, not an
         *     announced reset)
         */
        public boolean bodyRetryWindow() {
            return source != HintSource.HEADER && !announcedReset;
        }
    }

    private RetryHints() {
    }

    /**
     * Every hint of a failure, in FC-3 order (at most one per step): headers, the executor's
     * structured hint, Google {@code RetryInfo} in the body, other JSON fields, body text. The
     * first is the one a verdict carries.
     *
     * @param head the response head
     * @param structured the executor's structured hint, or null
     * @param lowerText the lower-cased error text (body, code, type, message)
     * @param nowMillis the current time
     * @return the hints found, possibly empty
     */
    public static List<Hint> all(ResponseHead head, RetryHint structured, String lowerText, long nowMillis) {
        List<Hint> found = new ArrayList<>(4);
        headerHint(head, nowMillis).ifPresent(found::add);
        fromStructured(structured).ifPresent(found::add);
        fromBodyJson(lowerText, nowMillis).ifPresent(found::add);
        fromBodyText(lowerText, nowMillis).ifPresent(found::add);
        return found;
    }

    /**
     * The retry hint of a response's headers, in ms, capped at {@link #MAX_RESET_MS}.
     *
     * @param head the response head
     * @param nowMillis the current time (for dates)
     * @return the hint, or empty
     */
    public static Optional<Long> fromHeaders(ResponseHead head, long nowMillis) {
        return headerHint(head, nowMillis).map(Hint::ms);
    }

    /**
     * The header hint, in FC-3 order: {@code Retry-After} (seconds, HTTP date, or {@code 30s}
     * style), {@code x-ratelimit-reset-requests}, {@code x-ratelimit-reset-tokens} (durations),
     * {@code x-ratelimit-reset} (epoch seconds or ms), {@code anthropic-ratelimit-*-reset}
     * (RFC 3339 or epoch seconds). An unparseable header falls through to the next one.
     *
     * @param head the response head
     * @param nowMillis the current time
     * @return the hint, or empty
     */
    public static Optional<Hint> headerHint(ResponseHead head, long nowMillis) {
        return HeaderRetryHints.of(head, nowMillis);
    }

    /** An RFC 3339 time or epoch seconds/ms: ms from now until then (0 when past). */
    public static Optional<Long> parseResetTime(String value, long nowMillis) {
        return HintTimes.parseResetTime(value, nowMillis);
    }

    /**
     * Parses an {@code x-ratelimit-reset} value: the epoch time of the reset, in seconds, or in
     * milliseconds when above 1e10; a value below 1e9 cannot be a current epoch and is read as
     * seconds from now.
     *
     * @param value the header value
     * @param nowMillis the current time
     * @return ms until the reset (0 when past), or empty when unparseable
     */
    public static Optional<Long> parseEpochReset(String value, long nowMillis) {
        return HintTimes.parseEpochReset(value, nowMillis);
    }

    /**
     * Parses a {@code Retry-After} value: seconds, an HTTP date, or a {@code 30s}/{@code 5m}/
     * {@code 1h} duration (checked after plain seconds, so {@code 5m} is 300 s, not 5 s).
     *
     * @param value the value
     * @param nowMillis the current time
     * @return ms to wait, or empty when unparseable
     */
    public static Optional<Long> parseRetryAfter(String value, long nowMillis) {
        return HintTimes.parseRetryAfter(value, nowMillis);
    }

    /**
     * Parses a Go-style duration ({@code 1h2m3.5s}, {@code 20ms}) or plain seconds.
     *
     * @param value the value
     * @return ms, or empty
     */
    public static Optional<Long> parseDuration(String value) {
        return HintTimes.parseDuration(value);
    }

    /**
     * The executor's structured hint: {@code google_rpc_retry_info} keeps its source, anything
     * else is body text. Capped at {@link #MAX_RETRY_IN_MS}.
     *
     * @param hint the hint, or null
     * @return the hint, or empty
     */
    public static Optional<Hint> fromStructured(RetryHint hint) {
        if (hint == null) {
            return Optional.empty();
        }
        HintSource source = RetryHint.GOOGLE_RPC_RETRY_INFO.equals(hint.source())
                ? HintSource.GOOGLE_RPC_RETRY_INFO : HintSource.BODY_TEXT;
        return Optional.of(new Hint(Math.min(hint.delayMs(), MAX_RETRY_IN_MS), source, false));
    }

    /**
     * A hint in the JSON fields of a body, in order: a {@code google.rpc.RetryInfo}
     * {@code retryDelay} (source {@code GOOGLE_RPC_RETRY_INFO}, cap 24 h); then (source
     * {@code BODY_JSON}) {@code retryAfter} (an ISO time, cap 30 days), {@code retry_after_ms} /
     * {@code retryAfterMs} (ms, 24 h), {@code retry_after} (seconds, 24 h), and — Sluice —
     * Codex's {@code resets_in_seconds} / {@code resets_at} (epoch) and an {@code x-ratelimit-reset}
     * header echoed in the body (OpenRouter's {@code metadata.headers}), all announced resets
     * (30 days). The body is not parsed as JSON: the fields are found by their names.
     *
     * @param lowerText the lower-cased error text
     * @param nowMillis the current time
     * @return the hint, or empty
     */
    public static Optional<Hint> fromBodyJson(String lowerText, long nowMillis) {
        return BodyJsonRetryHints.of(lowerText, nowMillis);
    }

    /**
     * A hint in the natural-language text of a body, in order: "retry in|after 17s", "try again
     * in 2m30s", "wait 30 seconds" (cap 24 h); then announced resets (cap 30 days): an ISO time
     * with a zone after "resets at|try again at|wait until|available at|retry after", "reset(s)
     * after|in 1h2m3s", "resets in 3 days", and GLM's {@code 限额将在 <Beijing time> 重置}.
     *
     * @param lowerText the lower-cased error text
     * @param nowMillis the current time
     * @return the hint, or empty
     */
    public static Optional<Hint> fromBodyText(String lowerText, long nowMillis) {
        return BodyTextRetryHints.of(lowerText, nowMillis);
    }

    /** A back-off window ("retry in …"), capped at {@link #MAX_RETRY_IN_MS}; negative is 0. */
    static Hint retryIn(double ms, HintSource source) {
        return new Hint((long) Math.ceil(Math.min(Math.max(0, ms), MAX_RETRY_IN_MS)), source, false);
    }

    /** An announced reset, capped at {@link #MAX_RESET_MS}; a past one is 0. */
    static Hint reset(long ms, HintSource source) {
        return new Hint(Math.min(Math.max(0, ms), MAX_RESET_MS), source, true);
    }
}
