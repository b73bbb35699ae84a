package dev.sluice.runtime.combo.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ModelFacts;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The observations {@code auto} reads (issue 34): decayed failure rate, recent median latency, catalog cost. */
class ComboStatsTest {

    private final TestClock clock = TestClock.at(Instant.parse("2026-12-06T00:00:00Z"));
    private final ComboStats stats = new ComboStats(1, 2);
    private final ComboTarget target = new ComboTarget("p/m", null, null, null, null);

    private ComboTargetView view() {
        return stats.view(0, target, null, ModelFacts.UNKNOWN, 0, clock.millis());
    }

    @Test
    void theMedianOfRecentAnswersIsShownUntilTheNewestIsTenMinutesOld_issue34() {
        assertThat(view().latencyP50Ms()).isNull();
        for (long ms : new long[] {100, 900, 300, 200, 5_000}) {
            stats.succeeded(0, clock.millis(), ms);
        }
        assertThat(view().latencyP50Ms()).isEqualTo(300);
        clock.advance(Duration.ofMillis(ComboStats.LATENCY_HORIZON_MS));
        assertThat(view().latencyP50Ms()).isEqualTo(300);
        clock.advance(Duration.ofMillis(1));
        assertThat(view().latencyP50Ms()).as("stale").isNull();
        stats.succeeded(0, clock.millis(), 50);
        assertThat(view().latencyP50Ms()).as("(100, 200, 300, 900, 5000, 50): mean of 200 and 300").isEqualTo(250);
    }

    @Test
    void onlyTheLastSixteenAnswersCount_issue34() {
        for (int i = 0; i < ComboStats.LATENCY_SAMPLES; i++) {
            stats.succeeded(0, clock.millis(), 10_000);
        }
        for (int i = 0; i < ComboStats.LATENCY_SAMPLES; i++) {
            stats.succeeded(0, clock.millis(), 20);
        }
        assertThat(view().latencyP50Ms()).isEqualTo(20);
    }

    @Test
    void theFailureRateDecaysWithEachAnswer_issue34() {
        assertThat(view().failureRate()).isNull();
        stats.failed(0);
        assertThat(view().failureRate()).isEqualTo(1.0);
        stats.succeeded(0, clock.millis(), 10);
        assertThat(view().failureRate()).isCloseTo(0.8, org.assertj.core.data.Offset.offset(1e-9));
        for (int i = 0; i < 10; i++) {
            stats.succeeded(0, clock.millis(), 10);
        }
        assertThat(view().failureRate()).isLessThan(0.1);
    }

    @Test
    void aTargetWithoutACostTakesTheCatalogsMeanPriceAndAConfiguredCostWins_issue34() {
        ModelFacts priced = ModelFacts.builder().inputPerMillion(3.0).outputPerMillion(15.0).build();
        assertThat(stats.view(0, target, null, priced, 0, clock.millis()).costPer1kTokens()).isEqualTo(0.009);
        ComboTarget configured = new ComboTarget("p/m", null, null, null, 0.5);
        assertThat(stats.view(0, configured, null, priced, 0, clock.millis()).costPer1kTokens()).isEqualTo(0.5);
        assertThat(stats.view(0, target, null, ModelFacts.UNKNOWN, 2, clock.millis()).heldConnections()).isEqualTo(2);
    }
}
