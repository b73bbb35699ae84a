package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.ctx;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.plain;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.combo.ComboContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/** Strict-random is a shuffle bag per combo (SPEC CO-2). */
class StrictRandomStrategyTest {

    private final StrictRandomStrategy s = new StrictRandomStrategy();
    private final ComboContext ctx = ctx("sr", new SplittableRandom(2024));

    @Test
    void everyCycleStartsEachTargetExactlyOnce_CO2() {
        var all = plain(0, 1, 2, 3, 4);
        Set<List<Integer>> cycleOrders = new HashSet<>();

        for (int cycle = 0; cycle < 50; cycle++) {
            List<Integer> firsts = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                firsts.add(s.order(ctx, all).getFirst().index());
            }
            assertThat(firsts).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
            cycleOrders.add(firsts);
        }

        // reshuffled between cycles, not one fixed order
        assertThat(cycleOrders).hasSizeGreaterThan(10);
    }

    @Test
    void aPreviewDrawsNothing_issue34() {
        var all = plain(0, 1, 2, 3);
        List<Integer> drawn = indices(s.order(ctx, all));

        List<Integer> preview = indices(s.preview(ctx, all));
        assertThat(indices(s.preview(ctx, all))).isEqualTo(preview);
        // the next draw is what the preview showed, and the cycle still starts each target once
        assertThat(indices(s.order(ctx, all))).isEqualTo(preview);
        List<Integer> firsts = new ArrayList<>(List.of(drawn.getFirst(), preview.getFirst()));
        firsts.add(s.order(ctx, all).getFirst().index());
        firsts.add(s.order(ctx, all).getFirst().index());
        assertThat(firsts).containsExactlyInAnyOrder(0, 1, 2, 3);
    }

    @Test
    void theFallbacksAreTheBagsRemainingOrderThenTheDrawnInListOrder_CO2() {
        var all = plain(0, 1, 2, 3);

        List<Integer> first = indices(s.order(ctx, all));
        for (int k = 1; k < 4; k++) {
            List<Integer> next = indices(s.order(ctx, all));
            List<Integer> expected = new ArrayList<>(first.subList(k, 4));
            expected.addAll(first.subList(0, k).stream().sorted().toList());
            assertThat(next).isEqualTo(expected);
        }
    }

    @Test
    void anExcludedTargetIsSkippedWithoutBeingConsumed_CO2() {
        var all = plain(0, 1, 2, 3);
        List<Integer> bag = indices(s.order(ctx, all));
        int skipped = bag.get(1);
        var withoutSkipped = all.stream().filter(t -> t.index() != skipped).toList();

        assertThat(s.order(ctx, withoutSkipped).getFirst().index()).isEqualTo(bag.get(2));
        // back again: it was not consumed and is next in the bag
        assertThat(s.order(ctx, all).getFirst().index()).isEqualTo(skipped);
        assertThat(s.order(ctx, all).getFirst().index()).isEqualTo(bag.get(3));
    }

    @Test
    void aLongExclusionEndsTheCycleWithoutTheExcludedTarget_CO2() {
        var all = plain(0, 1, 2);
        List<Integer> bag = indices(s.order(ctx, all));
        int excluded = bag.get(2);
        var without = all.stream().filter(t -> t.index() != excluded).toList();

        assertThat(s.order(ctx, without).getFirst().index()).isEqualTo(bag.get(1));
        for (int cycle = 0; cycle < 10; cycle++) {
            List<Integer> firsts = List.of(s.order(ctx, without).getFirst().index(), s.order(ctx, without).getFirst().index());
            assertThat(firsts).containsExactlyInAnyOrderElementsOf(indices(without));
        }
    }

    @Test
    void eachComboHasItsOwnBag_CO2() {
        var all = plain(0, 1, 2);
        ComboContext other = ctx("other", new SplittableRandom(7));
        List<Integer> mine = new ArrayList<>();
        List<Integer> theirs = new ArrayList<>();

        for (int i = 0; i < 3; i++) {
            mine.add(s.order(ctx, all).getFirst().index());
            theirs.add(s.order(other, all).getFirst().index());
        }

        assertThat(mine).containsExactlyInAnyOrder(0, 1, 2);
        assertThat(theirs).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void concurrentRequestsStillVisitEachTargetOncePerCycle_CO2() throws Exception {
        int threads = 8;
        int perThread = 1_000;
        var all = plain(0, 1, 2, 3);
        AtomicIntegerArray firsts = new AtomicIntegerArray(4);
        SplittableRandom seeds = new SplittableRandom(99);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                // SplittableRandom is not thread-safe: one per thread, as the gateway would
                ComboContext own = ctx("sr", seeds.split());
                done.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        var order = s.order(own, all);
                        assertThat(indices(order)).containsExactlyInAnyOrder(0, 1, 2, 3);
                        firsts.incrementAndGet(order.getFirst().index());
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
    void aForgottenComboStartsAFreshCycle_CO2() {
        var all = plain(0, 1);
        int drawn = s.order(ctx, all).getFirst().index();
        // mid-cycle the other target is due; after forget any target may start a fresh cycle
        s.forget(ctx.comboName());
        Set<Integer> firstsAfterForget = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            firstsAfterForget.add(s.order(ctx, all).getFirst().index());
            s.forget(ctx.comboName());
        }
        assertThat(firstsAfterForget).contains(drawn).containsExactlyInAnyOrder(0, 1);
    }
}
