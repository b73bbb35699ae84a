package dev.sluice.runtime.resilience.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Quota announcements read from successful answers for reset-aware routing (SPEC OF-4). */
class QuotaObservationsTest {

    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    private final QuotaObservations quotas = new QuotaObservations(clock);

    private static ResponseHead head(Map<String, String> headers) {
        java.util.Map<String, List<String>> m = new java.util.HashMap<>();
        headers.forEach((k, v) -> m.put(k, List.of(v)));
        return new ResponseHead(200, m);
    }

    @Test
    void openAiHeadersGiveTheSmallestShareAndTheEarliestReset_OF4() {
        quotas.record("c1", head(Map.of("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "40",
                "x-ratelimit-limit-tokens", "10000", "x-ratelimit-remaining-tokens", "9000",
                "x-ratelimit-reset-requests", "6m0s", "x-ratelimit-reset-tokens", "20s")));
        QuotaObservations.Quota q = quotas.of("c1");
        assertThat(q.remaining()).isEqualTo(0.4);
        assertThat(q.resetAt()).isEqualTo(clock.millis() + 20_000);
    }

    @Test
    void anthropicHeadersAreReadToo_OF4() {
        quotas.record("c2", head(Map.of("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "5",
                "anthropic-ratelimit-requests-reset", "2026-01-01T00:01:00Z")));
        assertThat(quotas.of("c2").remaining()).isEqualTo(0.1);
        assertThat(quotas.of("c2").resetAt()).isEqualTo(Instant.parse("2026-01-01T00:01:00Z").toEpochMilli());
    }

    @Test
    void answersWithoutRateLimitHeadersChangeNothingAndOldObservationsAreForgotten_OF4() {
        quotas.record("c3", head(Map.of("content-type", "application/json")));
        assertThat(quotas.of("c3")).isNull();
        quotas.record("c3", head(Map.of("x-ratelimit-limit-requests", "10", "x-ratelimit-remaining-requests", "abc")));
        assertThat(quotas.of("c3")).isNull();
        quotas.record("c3", head(Map.of("x-ratelimit-limit-requests", "10", "x-ratelimit-remaining-requests", "10")));
        assertThat(quotas.of("c3").remaining()).isEqualTo(1.0);
        clock.advance(Duration.ofMillis(QuotaObservations.MAX_AGE_MS + 1));
        assertThat(quotas.of("c3")).isNull();
    }

    @org.junit.jupiter.api.Test
    void onlyAnswersWithARateLimitHeaderAreLookedAtClosely_OF4() {
        java.util.function.Function<Map<String, List<String>>, Boolean> announces =
                h -> QuotaObservations.announcesLimits(new dev.sluice.api.upstream.ResponseHead(200, h));
        org.assertj.core.api.Assertions.assertThat(announces.apply(Map.of("content-type", List.of("application/json")))).isFalse();
        org.assertj.core.api.Assertions.assertThat(announces.apply(Map.of("X-RateLimit-Remaining-Requests", List.of("1")))).isTrue();
        org.assertj.core.api.Assertions.assertThat(announces.apply(Map.of("anthropic-ratelimit-requests-limit", List.of("5")))).isTrue();
        org.assertj.core.api.Assertions.assertThat(QuotaObservations.announcesLimits(null)).isFalse();
    }

    @Test
    void claudeSubscriptionWindowsGiveTheWeeklyEnd_issue34() {
        long in5h = clock.millis() / 1000 + 3_600;
        long in7d = clock.millis() / 1000 + 4 * 86_400;
        quotas.record("c5", head(Map.of("anthropic-ratelimit-unified-5h-reset", Long.toString(in5h),
                "anthropic-ratelimit-unified-7d-reset", Long.toString(in7d), "anthropic-ratelimit-unified-status", "allowed")));
        assertThat(quotas.of("c5").windowResetAt()).isEqualTo(in7d * 1000);
        assertThat(quotas.of("c5").windowMs()).isEqualTo(7L * 86_400_000);
    }

    @Test
    void codexWindowsAreReadByTheirAnnouncedLength_issue34() {
        // Codex names its windows primary and secondary; either may be the weekly one
        quotas.record("c6", head(Map.of("x-codex-primary-window-minutes", "10080", "x-codex-primary-reset-after-seconds", "400",
                "x-codex-secondary-window-minutes", "300", "x-codex-secondary-reset-after-seconds", "100")));
        assertThat(quotas.of("c6").windowResetAt()).isEqualTo(clock.millis() + 400_000);
        quotas.record("c7", head(Map.of("x-codex-primary-window-minutes", "300", "x-codex-primary-reset-after-seconds", "100",
                "x-codex-secondary-window-minutes", "10080", "x-codex-secondary-reset-at", Long.toString(clock.millis() / 1000 + 9_000))));
        assertThat(quotas.of("c7").windowResetAt()).isEqualTo(clock.millis() + 9_000_000);
        assertThat(quotas.of("c7").windowMs()).isEqualTo(10_080L * 60_000);
        assertThat(quotas.of("c7").remaining()).isNull();
    }

    @Test
    void aWindowWithoutLengthOrResetIsNotAWindow_issue34() {
        quotas.record("c8", head(Map.of("x-codex-primary-window-minutes", "0", "x-codex-primary-reset-after-seconds", "100",
                "x-codex-secondary-window-minutes", "300")));
        assertThat(quotas.of("c8")).isNull();
    }
}
