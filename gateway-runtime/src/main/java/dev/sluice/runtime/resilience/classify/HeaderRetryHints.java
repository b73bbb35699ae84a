package dev.sluice.runtime.resilience.classify;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.runtime.resilience.classify.RetryHints.Hint;
import dev.sluice.runtime.resilience.classify.Verdict.HintSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The retry hint of a response's headers (SPEC FC-3, first step), capped at
 * {@link RetryHints#MAX_RESET_MS}.
 */
final class HeaderRetryHints {

    private static final Pattern ANTHROPIC_RESET = Pattern.compile("anthropic-ratelimit-(.{1,60})-reset");

    private HeaderRetryHints() {
    }

    /**
     * The header hint, in FC-3 order: {@code Retry-After} (seconds, HTTP date, or {@code 30s}
     * style), {@code x-ratelimit-reset-requests}, {@code x-ratelimit-reset-tokens} (durations),
     * {@code x-ratelimit-reset} (epoch seconds or ms), {@code anthropic-ratelimit-*-reset}
     * (RFC 3339 or epoch seconds). An unparseable header falls through to the next one.
     */
    static Optional<Hint> of(ResponseHead head, long nowMillis) {
        if (head == null) {
            return Optional.empty();
        }
        Optional<Long> ms = head.first("retry-after").flatMap(v -> HintTimes.parseRetryAfter(v, nowMillis));
        for (String h : new String[] {"x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"}) {
            if (ms.isEmpty()) {
                ms = head.first(h).flatMap(HintTimes::parseDuration);
            }
        }
        if (ms.isEmpty()) {
            ms = head.first("x-ratelimit-reset").flatMap(v -> HintTimes.parseEpochReset(v, nowMillis));
        }
        if (ms.isEmpty()) {
            ms = anthropicReset(head, nowMillis);
        }
        return ms.map(v -> new Hint(Math.min(v, RetryHints.MAX_RESET_MS), HintSource.HEADER, true));
    }

    /**
     * Anthropic's reset headers: the unified (subscription) reset when present, else the latest
     * reset of a limit whose {@code -remaining} is 0, else the earliest reset.
     */
    private static Optional<Long> anthropicReset(ResponseHead head, long nowMillis) {
        Optional<Long> unified = head.first("anthropic-ratelimit-unified-reset").flatMap(v -> HintTimes.parseResetTime(v, nowMillis));
        if (unified.isPresent()) {
            return unified;
        }
        Long exhausted = null;
        Long earliest = null;
        for (Map.Entry<String, List<String>> e : head.headers().entrySet()) {
            Matcher m = ANTHROPIC_RESET.matcher(e.getKey());
            if (!m.matches() || e.getValue().isEmpty()) {
                continue;
            }
            Optional<Long> at = HintTimes.parseResetTime(e.getValue().get(0), nowMillis);
            if (at.isEmpty()) {
                continue;
            }
            long v = at.get();
            earliest = earliest == null ? v : Math.min(earliest, v);
            boolean spent = head.first("anthropic-ratelimit-" + m.group(1) + "-remaining").map(String::strip)
                    .filter("0"::equals).isPresent();
            if (spent) {
                exhausted = exhausted == null ? v : Math.max(exhausted, v);
            }
        }
        return Optional.ofNullable(exhausted != null ? exhausted : earliest);
    }
}
