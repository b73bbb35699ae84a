package dev.sluice.runtime.resilience.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.testkit.TestClock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pacing learned from announced request windows (SPEC RQ-10). */
class LearnedRateLimitsTest {

    private static final long NOW = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();

    private static ResponseHead head(String... namesAndValues) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            h.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
        }
        return new ResponseHead(200, h);
    }

    @Test
    void tenPercentOrMoreLeftIsHealthy_RQ10() {
        assertThat(LearnedRateLimits.read(head("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "10",
                "x-ratelimit-reset-requests", "30s"), NOW)).isInstanceOf(LearnedRateLimits.Healthy.class);
    }

    @Test
    void belowTenPercentTheRestIsSpreadEvenlyUntilTheReset_RQ10() {
        var r = LearnedRateLimits.read(head("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "5",
                "x-ratelimit-reset-requests", "30s"), NOW);
        assertThat(r).isEqualTo(new LearnedRateLimits.Low(new ConnectionGates.Pacing(5_000, NOW + 30_000, 100, 5)));
        var none = LearnedRateLimits.read(head("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "0",
                "x-ratelimit-reset-requests", "12s"), NOW);
        assertThat(none).isEqualTo(new LearnedRateLimits.Low(new ConnectionGates.Pacing(12_000, NOW + 12_000, 100, 0)));
    }

    @Test
    void anthropicHeadersAnnounceTheResetAsATime_RQ10() {
        var r = LearnedRateLimits.read(head("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "1",
                "anthropic-ratelimit-requests-reset", "2026-11-29T10:00:20Z"), NOW);
        assertThat(r).isEqualTo(new LearnedRateLimits.Low(new ConnectionGates.Pacing(10_000, NOW + 20_000, 50, 1)));
    }

    @Test
    void incompleteOrUnreadableAnnouncementsAreSilent_RQ10() {
        assertThat(LearnedRateLimits.read(head("x-ratelimit-remaining-requests", "1"), NOW)).isInstanceOf(LearnedRateLimits.Silent.class);
        assertThat(LearnedRateLimits.read(head("x-ratelimit-limit-requests", "x", "x-ratelimit-remaining-requests", "1"), NOW))
                .isInstanceOf(LearnedRateLimits.Silent.class);
        assertThat(LearnedRateLimits.read(head("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "1"), NOW))
                .as("low, but no reset to pace towards").isInstanceOf(LearnedRateLimits.Silent.class);
    }

    @Test
    void applyingPacesOnLowAndStopsOnHealthy_RQ10() {
        TestClock clock = TestClock.at(Instant.ofEpochMilli(NOW));
        ConnectionGates gates = new ConnectionGates(clock, n -> { }, TurnSteps.NONE);
        LearnedRateLimits.apply(gates, "c1", head("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "5",
                "x-ratelimit-reset-requests", "30s"), NOW);
        assertThat(gates.learned("c1")).isEqualTo(new ConnectionGates.Pacing(5_000, NOW + 30_000, 100, 5));
        LearnedRateLimits.apply(gates, "c1", head("x-ratelimit-limit-requests", "100", "x-ratelimit-remaining-requests", "90",
                "x-ratelimit-reset-requests", "1s"), NOW);
        assertThat(gates.learned("c1")).isNull();
    }
}
