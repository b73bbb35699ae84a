package dev.sluice.runtime.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.upstream.ResponseHead;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Upstream retry hints from response headers (SPEC FC-3, BO-2). */
class RetryHintsTest {

    private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    private static ResponseHead head(String... nameValue) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            h.put(nameValue[i], List.of(nameValue[i + 1]));
        }
        return new ResponseHead(429, h);
    }

    // ------------------------------------------------------------------ Retry-After

    @Test
    void retryAfterSecondsAreMilliseconds_FC3() {
        assertThat(RetryHints.parseRetryAfter("120", NOW)).contains(120_000L);
        assertThat(RetryHints.parseRetryAfter(" 0 ", NOW)).contains(0L);
        assertThat(RetryHints.parseRetryAfter("1.5", NOW)).contains(1_500L);
    }

    @Test
    void retryAfterHttpDateIsTheTimeUntilThatDate_FC3() {
        assertThat(RetryHints.parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", NOW)).contains(30_000L);
        assertThat(RetryHints.parseRetryAfter("Fri, 2 Jan 2026 00:00:00 GMT", NOW)).contains(86_400_000L);
    }

    @Test
    void retryAfterHttpDateInThePastIsZero_FC3() {
        assertThat(RetryHints.parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", NOW)).contains(0L);
    }

    @Test
    void unparseableOrNegativeRetryAfterIsIgnored_FC3() {
        assertThat(RetryHints.parseRetryAfter("soon", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("-5", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("NaN", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("2026-01-01T00:00:30Z", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("Thu, 32 Jan 2026 00:00:30 GMT", NOW)).isEmpty();
    }

    @Test
    void nonNumericLookalikesAreIgnored_FC3() {
        assertThat(RetryHints.parseRetryAfter("Infinity", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("5d", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("0x1p4", NOW)).isEmpty();
        assertThat(RetryHints.parseDuration("NaN")).isEmpty();
        assertThat(RetryHints.parseDuration("Infinity")).isEmpty();
    }

    // ------------------------------------------------------------------ Go-style durations

    @Test
    void goStyleDurationsAreParsed_FC3() {
        assertThat(RetryHints.parseDuration("6m0s")).contains(360_000L);
        assertThat(RetryHints.parseDuration("20ms")).contains(20L);
        assertThat(RetryHints.parseDuration("1.5s")).contains(1_500L);
        assertThat(RetryHints.parseDuration("1h2m3s")).contains(3_723_000L);
        assertThat(RetryHints.parseDuration("2m30.5s")).contains(150_500L);
        assertThat(RetryHints.parseDuration("1s500ms")).contains(1_500L);
        assertThat(RetryHints.parseDuration("1h")).contains(3_600_000L);
        assertThat(RetryHints.parseDuration("0.0005s")).contains(1L);
    }

    @Test
    void plainNumbersAreSeconds_FC3() {
        assertThat(RetryHints.parseDuration("2")).contains(2_000L);
        assertThat(RetryHints.parseDuration("0.25")).contains(250L);
    }

    @Test
    void unparseableDurationsAreIgnored_FC3() {
        assertThat(RetryHints.parseDuration("")).isEmpty();
        assertThat(RetryHints.parseDuration("   ")).isEmpty();
        assertThat(RetryHints.parseDuration("soon")).isEmpty();
        assertThat(RetryHints.parseDuration("5 minutes")).isEmpty();
        assertThat(RetryHints.parseDuration("-3")).isEmpty();
        assertThat(RetryHints.parseDuration("3s2m")).isEmpty();
        assertThat(RetryHints.parseDuration("m")).isEmpty();
    }

    // ------------------------------------------------------------------ headers, in order

    @Test
    void retryAfterHeaderIsReadCaseInsensitively_FC3() {
        assertThat(RetryHints.fromHeaders(head("Retry-After", "7"), NOW)).contains(7_000L);
    }

    @Test
    void rateLimitResetRequestsHeaderIsRead_FC3() {
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-requests", "6m0s"), NOW)).contains(360_000L);
        assertThat(RetryHints.fromHeaders(head("X-RateLimit-Reset-Requests", "20ms"), NOW)).contains(20L);
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-requests", "1.5s"), NOW)).contains(1_500L);
    }

    @Test
    void rateLimitResetTokensHeaderIsRead_FC3() {
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-tokens", "45s"), NOW)).contains(45_000L);
    }

    @Test
    void rateLimitResetEpochHeaderIsTheTimeUntilThatInstant_FC3() {
        long inOneMinute = NOW + 60_000;
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset", String.valueOf(inOneMinute / 1000)), NOW)).contains(60_000L);
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset", String.valueOf(inOneMinute)), NOW)).contains(60_000L);
    }

    @Test
    void retryAfterComesFirstThenRequestsThenTokens_FC3() {
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-tokens", "9s", "x-ratelimit-reset-requests", "8s",
                "retry-after", "1"), NOW)).contains(1_000L);
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-tokens", "9s", "x-ratelimit-reset-requests", "8s"), NOW))
                .contains(8_000L);
    }

    @Test
    void anUnparseableHeaderFallsThroughToTheNextOne_FC3() {
        assertThat(RetryHints.fromHeaders(head("retry-after", "later", "x-ratelimit-reset-requests", "bogus",
                "x-ratelimit-reset-tokens", "2s"), NOW)).contains(2_000L);
    }

    @Test
    void noHintHeadersGiveNoHint_FC3() {
        assertThat(RetryHints.fromHeaders(head("content-type", "application/json"), NOW)).isEmpty();
        assertThat(RetryHints.fromHeaders(head("retry-after", "whenever"), NOW)).isEmpty();
    }
}
