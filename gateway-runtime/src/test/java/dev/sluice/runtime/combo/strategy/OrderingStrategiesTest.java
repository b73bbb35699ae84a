package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.ctx;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.list;
import static dev.sluice.runtime.combo.strategy.Views.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.combo.ComboContext;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The deterministic strategies order targets exactly (SPEC CO-2). */
class OrderingStrategiesTest {

    private final ComboContext ctx = ctx("c", new SplittableRandom(1));

    @Test
    void priorityIsAscendingPriorityTiesInListOrder_CO2() {
        var targets = list(t(0).priority(3), t(1).priority(1), t(2).priority(2), t(3).priority(1), t(4).priority(0));

        assertThat(indices(new PriorityStrategy().order(ctx, targets))).containsExactly(4, 1, 3, 2, 0);
    }

    @Test
    void priorityDefaultsToListOrder_CO2() {
        assertThat(indices(new PriorityStrategy().order(ctx, Views.plain(0, 2, 5)))).containsExactly(0, 2, 5);
    }

    @Test
    void fillFirstIsAlwaysListOrderWhateverTheLoadOrPriority_CO2() {
        var targets = list(t(0).priority(9).uses(1000).inFlight(50), t(2).priority(1), t(3).weight(100).cost(0.0));
        FillFirstStrategy s = new FillFirstStrategy();

        assertThat(indices(s.order(ctx, targets))).containsExactly(0, 2, 3);
        assertThat(indices(s.order(ctx, targets))).containsExactly(0, 2, 3);
        // the first drained target gone (excluded): the next one leads
        assertThat(indices(s.order(ctx, targets.subList(1, 3)))).containsExactly(2, 3);
    }

    @Test
    void leastUsedIsFewestUsesThenOldestUseNeverUsedFirstThenListOrder_CO2() {
        var targets = list(t(0).uses(5).lastUsedAt(100L), t(1).uses(2).lastUsedAt(300L), t(2).uses(2).lastUsedAt(200L),
                t(3).uses(2).lastUsedAt(null), t(4).uses(0), t(5).uses(2).lastUsedAt(200L));

        assertThat(indices(new LeastUsedStrategy().order(ctx, targets))).containsExactly(4, 3, 2, 5, 1, 0);
    }

    @Test
    void costOptimizedIsCheapestFirstUnknownLastTiesInListOrder_CO2() {
        var targets = list(t(0).cost(null), t(1).cost(0.5), t(2).cost(0.1), t(3).cost(Double.NaN), t(4).cost(0.1), t(5).cost(0.0));

        assertThat(indices(new CostOptimizedStrategy().order(ctx, targets))).containsExactly(5, 2, 4, 1, 0, 3);
    }

    @Test
    void lkgpPutsTheMostRecentSuccessFirstThenPriorityOrder_CO2() {
        var targets = list(t(0).priority(2).lastSuccessAt(500L), t(1).priority(1), t(2).priority(3).lastSuccessAt(900L),
                t(3).priority(0).lastSuccessAt(100L));

        assertThat(indices(new LastKnownGoodStrategy().order(ctx, targets))).containsExactly(2, 3, 1, 0);
    }

    @Test
    void lkgpWithoutAnySuccessIsPriorityOrder_CO2() {
        var targets = list(t(0).priority(2), t(1).priority(1), t(2).priority(1));

        assertThat(indices(new LastKnownGoodStrategy().order(ctx, targets))).containsExactly(1, 2, 0);
    }

    @Test
    void lkgpBreaksEqualSuccessTimesByPriority_CO2() {
        var targets = list(t(0).priority(5).lastSuccessAt(700L), t(1).priority(4).lastSuccessAt(700L), t(2).priority(1));

        assertThat(indices(new LastKnownGoodStrategy().order(ctx, targets))).containsExactly(1, 2, 0);
    }

    @Test
    void quotaShareIsFewestInFlightThenFewestUsesThenListOrder_CO2_QC3() {
        var targets = list(t(0).inFlight(1).uses(2), t(1).inFlight(0).uses(9), t(2).inFlight(0).uses(3), t(3).inFlight(0).uses(3),
                t(4).inFlight(2));

        assertThat(indices(new QuotaShareStrategy().order(ctx, targets))).containsExactly(2, 3, 1, 0, 4);
        assertThat(new QuotaShareStrategy().name()).isEqualTo("quota-share");
    }
}
