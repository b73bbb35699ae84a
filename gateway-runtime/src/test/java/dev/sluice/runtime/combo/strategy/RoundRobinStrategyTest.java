package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.ctx;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.plain;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.combo.ComboContext;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** Round-robin rotates by target index, per combo (SPEC CO-2). */
class RoundRobinStrategyTest {

    private final RoundRobinStrategy s = new RoundRobinStrategy(RoundRobinTurns.local());
    private final ComboContext ctx = ctx("rr", new SplittableRandom(1));

    @Test
    void eachRequestStartsOneFurtherAndTheRestFollowCyclically_CO2() {
        var all = plain(0, 1, 2, 3);

        assertThat(indices(s.order(ctx, all))).containsExactly(0, 1, 2, 3);
        assertThat(indices(s.order(ctx, all))).containsExactly(1, 2, 3, 0);
        assertThat(indices(s.order(ctx, all))).containsExactly(2, 3, 0, 1);
        assertThat(indices(s.order(ctx, all))).containsExactly(3, 0, 1, 2);
        assertThat(indices(s.order(ctx, all))).containsExactly(0, 1, 2, 3);
    }

    @Test
    void aPreviewShowsTheNextOrderWithoutTakingItsTurn_issue34() {
        var all = plain(0, 1, 2);

        assertThat(indices(s.preview(ctx, all))).containsExactly(0, 1, 2);
        assertThat(indices(s.preview(ctx, all))).containsExactly(0, 1, 2);
        assertThat(indices(s.order(ctx, all))).containsExactly(0, 1, 2);
        assertThat(indices(s.preview(ctx, all))).containsExactly(1, 2, 0);
        assertThat(indices(s.order(ctx, all))).containsExactly(1, 2, 0);
    }

    @Test
    void aTemporarilyExcludedTargetIsSkippedWithoutShiftingTheOthers_CO2() {
        var all = plain(0, 1, 2, 3);
        var without2 = plain(0, 1, 3);

        assertThat(indices(s.order(ctx, all))).containsExactly(0, 1, 2, 3);
        assertThat(indices(s.order(ctx, all))).containsExactly(1, 2, 3, 0);
        assertThat(indices(s.order(ctx, without2))).containsExactly(3, 0, 1);
        assertThat(indices(s.order(ctx, without2))).containsExactly(0, 1, 3);
        assertThat(indices(s.order(ctx, without2))).containsExactly(1, 3, 0);
        // 2 is back and takes its turn right after 1
        assertThat(indices(s.order(ctx, all))).containsExactly(2, 3, 0, 1);
        assertThat(indices(s.order(ctx, all))).containsExactly(3, 0, 1, 2);
    }

    @Test
    void theStartIsAnIndexSoAnExcludedPreviousStartStillAdvances_CO2() {
        assertThat(indices(s.order(ctx, plain(0, 1, 2)))).containsExactly(0, 1, 2);
        // 0 excluded right after it started: the next start is the first index after 0
        assertThat(indices(s.order(ctx, plain(1, 2)))).containsExactly(1, 2);
        assertThat(indices(s.order(ctx, plain(0, 2)))).containsExactly(2, 0);
        assertThat(indices(s.order(ctx, plain(0, 1, 2)))).containsExactly(0, 1, 2);
    }

    @Test
    void eachComboHasItsOwnPosition_CO2() {
        var all = plain(0, 1, 2);
        ComboContext other = ctx("other", new SplittableRandom(1));

        assertThat(indices(s.order(ctx, all))).containsExactly(0, 1, 2);
        assertThat(indices(s.order(ctx, all))).containsExactly(1, 2, 0);
        assertThat(indices(s.order(other, all))).containsExactly(0, 1, 2);
        assertThat(indices(s.order(ctx, all))).containsExactly(2, 0, 1);
    }

    @Test
    void concurrentRequestsShareTheTurnsExactly_CO2() throws Exception {
        int threads = 8;
        int perThread = 1_000;
        var all = plain(0, 1, 2, 3);
        AtomicIntegerArray firsts = new AtomicIntegerArray(4);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new java.util.ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        List<Integer> order = indices(s.order(ctx, all));
                        int first = order.getFirst();
                        firsts.incrementAndGet(first);
                        for (int k = 0; k < 4; k++) {
                            assertThat(order.get(k)).isEqualTo((first + k) % 4);
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        }

        for (int i = 0; i < 4; i++) {
            assertThat(firsts.get(i)).isEqualTo(threads * perThread / 4);
        }
    }

    @Test
    void aForgottenComboStartsAgainFromItsFirstTarget_CO2() {
        var all = plain(0, 1, 2);
        assertThat(indices(s.order(ctx, all))).containsExactly(0, 1, 2);
        assertThat(indices(s.order(ctx, all))).containsExactly(1, 2, 0);

        s.forget(ctx.comboName());

        assertThat(indices(s.order(ctx, all))).containsExactly(0, 1, 2);
    }
}
