package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.ctx;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.list;
import static dev.sluice.runtime.combo.strategy.Views.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Weighted, random and p2c, with seeded random sources (SPEC CO-2). */
class RandomizedStrategiesTest {

    private static final int PICKS = 10_000;

    @Test
    void weightedThreeToOneGivesTheHeavyTargetThreeQuartersOfFirstPicks_CO2() {
        ComboContext ctx = ctx("w", new SplittableRandom(42));
        var targets = list(t(0).weight(1), t(1).weight(3));
        WeightedStrategy s = new WeightedStrategy();

        int heavyFirst = 0;
        for (int i = 0; i < PICKS; i++) {
            List<ComboTargetView> order = s.order(ctx, targets);
            if (order.getFirst().index() == 1) {
                heavyFirst++;
                assertThat(indices(order)).containsExactly(1, 0);
            } else {
                assertThat(indices(order)).containsExactly(0, 1);
            }
        }

        assertThat(heavyFirst / (double) PICKS).isCloseTo(0.75, within(0.02));
    }

    @Test
    void weightedNeverPicksWeightZeroFirstAndOrdersTheRestByDescendingWeight_CO2() {
        ComboContext ctx = ctx("w", new Random(7));
        var targets = list(t(0).weight(0), t(1).weight(2), t(2).weight(5), t(3).weight(2));
        WeightedStrategy s = new WeightedStrategy();

        for (int i = 0; i < 2_000; i++) {
            List<Integer> order = indices(s.order(ctx, targets));
            assertThat(order.getFirst()).isNotEqualTo(0);
            List<Integer> expectedRest = new java.util.ArrayList<>(List.of(2, 1, 3, 0));
            expectedRest.remove(order.getFirst());
            assertThat(order.subList(1, 4)).isEqualTo(expectedRest);
        }
    }

    @Test
    void weightedWithAllWeightsZeroIsListOrder_CO2() {
        ComboContext ctx = ctx("w", new SplittableRandom(3));
        var targets = list(t(0).weight(0), t(1).weight(0), t(2).weight(0));

        assertThat(indices(new WeightedStrategy().order(ctx, targets))).containsExactly(0, 1, 2);
    }

    @Test
    void randomFirstPickIsRoughlyUniformAndTheRestInListOrder_CO2() {
        ComboContext ctx = ctx("r", new SplittableRandom(11));
        var targets = Views.plain(0, 1, 2, 3);
        RandomStrategy s = new RandomStrategy();
        int[] firsts = new int[4];

        for (int i = 0; i < PICKS; i++) {
            List<Integer> order = indices(s.order(ctx, targets));
            firsts[order.getFirst()]++;
            assertThat(order.subList(1, 4)).isSorted();
        }

        for (int count : firsts) {
            assertThat(count / (double) PICKS).isCloseTo(0.25, within(0.02));
        }
    }

    @Test
    void p2cWithTwoTargetsAlwaysPicksTheLowerInFlight_CO2() {
        ComboContext ctx = ctx("p", new SplittableRandom(5));
        var targets = list(t(0).inFlight(4), t(1).inFlight(1));
        PowerOfTwoChoicesStrategy s = new PowerOfTwoChoicesStrategy();

        for (int i = 0; i < 1_000; i++) {
            assertThat(indices(s.order(ctx, targets))).containsExactly(1, 0);
        }
    }

    @Test
    void p2cBreaksInFlightTiesByUsesThenListOrder_CO2() {
        ComboContext ctx = ctx("p", new SplittableRandom(5));
        PowerOfTwoChoicesStrategy s = new PowerOfTwoChoicesStrategy();

        assertThat(indices(s.order(ctx, list(t(0).inFlight(2).uses(9), t(1).inFlight(2).uses(3))))).containsExactly(1, 0);
        assertThat(indices(s.order(ctx, list(t(0).inFlight(2).uses(3), t(1).inFlight(2).uses(3))))).containsExactly(0, 1);
    }

    @Test
    void p2cPrefersTheLessLoadedAndNeverPicksTheMostLoadedFirst_CO2() {
        ComboContext ctx = ctx("p", new SplittableRandom(9));
        var targets = list(t(0).inFlight(10), t(1).inFlight(0), t(2).inFlight(5), t(3).inFlight(2));
        PowerOfTwoChoicesStrategy s = new PowerOfTwoChoicesStrategy();
        int[] firsts = new int[4];

        for (int i = 0; i < PICKS; i++) {
            List<Integer> order = indices(s.order(ctx, targets));
            firsts[order.getFirst()]++;
            List<Integer> rest = new java.util.ArrayList<>(List.of(1, 3, 2, 0));
            rest.remove(order.getFirst());
            assertThat(order.subList(1, 4)).isEqualTo(rest);
        }

        // the least loaded wins every pair it is in (3 of 6 pairs), the most loaded none
        assertThat(firsts[0]).isZero();
        assertThat(firsts[1] / (double) PICKS).isCloseTo(0.5, within(0.02));
        assertThat(firsts[3] / (double) PICKS).isCloseTo(1 / 3.0, within(0.02));
        assertThat(firsts[2] / (double) PICKS).isCloseTo(1 / 6.0, within(0.02));
    }

    @Test
    void p2cWithOneTargetReturnsIt_CO2() {
        assertThat(indices(new PowerOfTwoChoicesStrategy().order(ctx("p", new SplittableRandom(1)), Views.plain(4))))
                .containsExactly(4);
    }
}
