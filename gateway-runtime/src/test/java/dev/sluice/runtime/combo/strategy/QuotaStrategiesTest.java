package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.NOW;
import static dev.sluice.runtime.combo.strategy.Views.ctx;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.list;
import static dev.sluice.runtime.combo.strategy.Views.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboTargetView;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The quota-driven strategies: reset-aware, headroom and quota-weighted (SPEC CO-2, OF-4). */
class QuotaStrategiesTest {

    private static final int PICKS = 10_000;

    private final ComboContext ctx = ctx("q", new SplittableRandom(1));

    @Test
    void resetAwareIsSoonestResetFirstPastCountsAsNowUnknownLastTiesByRemainingThenPriority_OF4() {
        var targets = list(t(0).resetAt(NOW + 4_000).quota(0.2), t(1).quota(0.9), t(2).resetAt(NOW - 500).quota(0.1),
                t(3).resetAt(NOW).quota(0.5), t(4).resetAt(NOW + 2_000), t(5).resetAt(NOW + 2_000).quota(0.4),
                t(6).resetAt(NOW - 100).quota(0.5).priority(0), t(7).priority(0), t(8).quota(0.9).priority(1));

        // "now" group (2, 3, 6) by remaining: 6 (0.5, priority 0), 3 (0.5), 2 (0.1); +2 s: 5 then
        // unknown remaining 4; +4 s: 0; unknown reset: 8 (0.9, priority 1), 1 (0.9), 7 (unknown)
        assertThat(indices(new ResetAwareStrategy().order(ctx, targets))).containsExactly(6, 3, 2, 5, 4, 0, 8, 1, 7);
    }

    @Test
    void resetAwarePrefersAPastResetOverAFutureOneWhateverTheRemainingQuota_OF4() {
        var targets = list(t(0).resetAt(NOW + 1).quota(1.0), t(1).resetAt(0L).quota(0.0));

        assertThat(indices(new ResetAwareStrategy().order(ctx, targets))).containsExactly(1, 0);
    }

    @Test
    void resetAwareWithNothingObservedIsPriorityOrder_OF4() {
        var targets = list(t(0).priority(3), t(1).priority(1), t(2).priority(2), t(3).priority(1));

        assertThat(indices(new ResetAwareStrategy().order(ctx, targets))).containsExactly(1, 3, 2, 0);
    }

    @Test
    void resetAwareUsesTheContextsClock_OF4() {
        var targets = list(t(0).resetAt(5_000L).quota(0.1), t(1).resetAt(3_000L).quota(0.9));
        ComboContext later = new ComboContext("q", java.util.Map.of(), new SplittableRandom(1), 6_000L);

        assertThat(indices(new ResetAwareStrategy().order(ctx, targets))).containsExactly(1, 0);
        // both resets passed: they tie at "now" and the remaining quota decides
        assertThat(indices(new ResetAwareStrategy().order(later, targets))).containsExactly(1, 0);
        assertThat(indices(new ResetAwareStrategy().order(later, list(t(0).resetAt(5_000L).quota(0.9), t(1).resetAt(3_000L).quota(0.1)))))
                .containsExactly(0, 1);
    }

    @Test
    void headroomIsMostRemainingFirstUnknownLastTiesInPriorityOrder_CO2() {
        var targets = list(t(0).quota(0.3).resetAt(NOW), t(1), t(2).quota(0.9).resetAt(NOW + 9_000), t(3).quota(0.3).priority(0),
                t(4).quota(0.0), t(5).priority(0), t(6).quota(1.0), t(7).quota(-0.0).priority(0), t(8).quota(Double.NaN));

        // -0.0 ties with 0.0; NaN counts as unknown; the reset time plays no part
        assertThat(indices(new HeadroomStrategy().order(ctx, targets))).containsExactly(6, 2, 3, 0, 7, 4, 5, 1, 8);
    }

    @Test
    void headroomWithNothingObservedIsPriorityOrder_CO2() {
        var targets = list(t(0).priority(2), t(1).priority(2), t(2).priority(1));

        assertThat(indices(new HeadroomStrategy().order(ctx, targets))).containsExactly(2, 0, 1);
    }

    @Test
    void quotaWeightedDrawsTheFirstTargetInProportionToItsRemainingQuota_CO2() {
        int[] firsts = firstPicks(list(t(0).quota(0.6), t(1).quota(0.2), t(2).quota(0.2)), new SplittableRandom(42),
                List.of(0, 1, 2));

        assertThat(firsts[0] / (double) PICKS).isCloseTo(0.6, within(0.02));
        assertThat(firsts[1] / (double) PICKS).isCloseTo(0.2, within(0.02));
        assertThat(firsts[2] / (double) PICKS).isCloseTo(0.2, within(0.02));
    }

    @Test
    void quotaWeightedCountsAnUnknownQuotaAsFull_CO2() {
        // shares 1.0 (unknown) / 0.5 / 0.5 → 50 / 25 / 25 %
        int[] firsts = firstPicks(list(t(0), t(1).quota(0.5), t(2).quota(0.5)), new SplittableRandom(7), List.of(0, 1, 2));

        assertThat(firsts[0] / (double) PICKS).isCloseTo(0.5, within(0.02));
        assertThat(firsts[1] / (double) PICKS).isCloseTo(0.25, within(0.02));
        assertThat(firsts[2] / (double) PICKS).isCloseTo(0.25, within(0.02));
    }

    @Test
    void quotaWeightedNeverPicksAZeroShareFirstAndOrdersTheRestByDescendingShare_CO2() {
        // by share: 2 (unknown = 1.0), 3 (0.3, priority 0), 1 (0.3), 0 (0)
        int[] firsts = firstPicks(list(t(0).quota(0.0), t(1).quota(0.3), t(2), t(3).quota(0.3).priority(0)), new SplittableRandom(9),
                List.of(2, 3, 1, 0));

        assertThat(firsts[0]).isZero();
        assertThat(firsts[2] / (double) PICKS).isCloseTo(1.0 / 1.6, within(0.02));
        assertThat(firsts[1] / (double) PICKS).isCloseTo(0.3 / 1.6, within(0.02));
        assertThat(firsts[3] / (double) PICKS).isCloseTo(0.3 / 1.6, within(0.02));
    }

    @Test
    void quotaWeightedWithEveryShareZeroIsPriorityOrder_CO2() {
        var targets = list(t(0).quota(0.0).priority(3), t(1).quota(0.0).priority(1), t(2).quota(-0.0).priority(2));
        QuotaWeightedStrategy s = new QuotaWeightedStrategy();

        for (int i = 0; i < 100; i++) {
            assertThat(indices(s.order(ctx, targets))).containsExactly(1, 2, 0);
        }
        assertThat(indices(s.order(ctx, list(t(4).quota(0.0))))).containsExactly(4);
    }

    /**
     * Orders {@link #PICKS} times, checks that after the first pick the others follow
     * {@code byShare} and counts the first picks per index.
     */
    private static int[] firstPicks(List<ComboTargetView> targets, SplittableRandom random, List<Integer> byShare) {
        ComboContext context = ctx("qw", random);
        QuotaWeightedStrategy s = new QuotaWeightedStrategy();
        int[] firsts = new int[targets.size()];
        for (int i = 0; i < PICKS; i++) {
            List<Integer> order = indices(s.order(context, targets));
            firsts[order.getFirst()]++;
            List<Integer> rest = new ArrayList<>(byShare);
            rest.remove(order.getFirst());
            assertThat(order.subList(1, order.size())).isEqualTo(rest);
        }
        return firsts;
    }

    @Test
    void resetWindowIsTheSoonestEndingLongWindowFirstEndedCountsAsNowUnknownLastTiesByPriority_issue34() {
        // the docs' worked example: a weekly window ending in 2 days, one ending in 6 days, one already
        // ended (its quota refilled: as good as "now"), and an API key that announces no window
        long day = 86_400_000L;
        var targets = list(t(0).windowResetAt(NOW + 6 * day), t(1), t(2).windowResetAt(NOW + 2 * day).resetAt(NOW + 1_000).quota(0.1),
                t(3).windowResetAt(NOW - 5).priority(9), t(4).windowResetAt(NOW).priority(1), t(5).priority(0));

        // "now" group (4 priority 1, 3 priority 9), then +2 d, +6 d; no window: 5 (priority 0), 1
        assertThat(indices(new ResetWindowStrategy().order(ctx, targets))).containsExactly(4, 3, 2, 0, 5, 1);
    }

    @Test
    void resetWindowIgnoresTheShortLimitsResetAwareReads_issue34() {
        // target 0's per-minute limit resets in 1 s, but its weekly window ends after target 1's
        var targets = list(t(0).resetAt(NOW + 1_000).quota(0.9).windowResetAt(NOW + 90_000), t(1).resetAt(NOW + 50_000).windowResetAt(NOW + 60_000));

        assertThat(indices(new ResetAwareStrategy().order(ctx, targets))).containsExactly(0, 1);
        assertThat(indices(new ResetWindowStrategy().order(ctx, targets))).containsExactly(1, 0);
    }
}
