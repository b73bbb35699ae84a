package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.NOW;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.list;
import static dev.sluice.runtime.combo.strategy.Views.t;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboRequest;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@code context-optimized} (issue 34): the smallest adequate window first; too-small targets held back. */
class ContextOptimizedStrategyTest {

    private final ContextOptimizedStrategy s = new ContextOptimizedStrategy();

    private static ComboContext ctx(long input, Integer maxTokens) {
        return new ComboContext("c", Map.of(), new SplittableRandom(1), NOW,
                ComboRequest.builder().estimatedInputTokens(() -> input).maxOutputTokens(maxTokens).build());
    }

    private List<Integer> tried(ComboContext ctx, List<ComboTargetView> targets) {
        return indices(s.order(ctx, targets.stream().filter(t -> s.holdBack(ctx, t) == null).toList()));
    }

    /** The worked example of docs/combos.md: windows 32k, 128k, 200k, unknown; a request of 90k + 8k. */
    private static List<ComboTargetView> example() {
        return list(t(0).window(128_000), t(1).window(32_000), t(2), t(3).window(200_000));
    }

    @Test
    void theSmallestAdequateWindowComesFirstAndTooSmallTargetsAreNotTried_issue34() {
        ComboContext ctx = ctx(90_000, 8_000);
        assertThat(s.holdBack(ctx, example().get(1))).isEqualTo(ComboStrategy.CONTEXT_LENGTH_EXCEEDED);
        // 128k then 200k, then the unknown window; 32k is held back
        assertThat(tried(ctx, example())).containsExactly(0, 3, 2);
    }

    @Test
    void aSmallRequestStartsAtTheSmallestWindowAndAnUnknownSizeHoldsNothingBack_issue34() {
        assertThat(tried(ctx(1_000, null), example())).containsExactly(1, 0, 3, 2);
        assertThat(tried(ctx(ComboRequest.UNKNOWN, null), example())).containsExactly(1, 0, 3, 2);
    }

    @Test
    void maxTokensCountsAgainstTheWindow_issue34() {
        ComboContext justFits = ctx(24_000, 8_000);
        ComboContext oneOver = ctx(24_001, 8_000);
        assertThat(s.holdBack(justFits, example().get(1))).isNull();
        assertThat(s.holdBack(oneOver, example().get(1))).isEqualTo(ComboStrategy.CONTEXT_LENGTH_EXCEEDED);
    }

    @Test
    void equalWindowsGoByPriority_issue34() {
        var targets = list(t(0).window(64_000).priority(5), t(1).window(64_000).priority(2), t(2).window(64_000).priority(9));
        assertThat(tried(ctx(10, null), targets)).containsExactly(1, 0, 2);
    }

    @Test
    void whenNoTargetFitsEveryOneIsHeldBack_issue34() {
        ComboContext ctx = ctx(500_000, null);
        assertThat(example().stream().filter(t -> t.facts().contextWindow() != null).map(t -> s.holdBack(ctx, t)))
                .containsOnly(ComboStrategy.CONTEXT_LENGTH_EXCEEDED);
        // the unknown window is still tried: nothing says it is too small
        assertThat(tried(ctx, example())).containsExactly(2);
    }

    @Test
    void explainShowsEachTargetsWindowAndWhetherTheRequestFits_issue34() {
        var figures = s.figures(ctx(90_000, 8_000), example());
        assertThat(figures.get(0)).containsEntry("contextWindow", 128_000L).containsEntry("neededTokens", 98_000L)
                .containsEntry("fits", true);
        assertThat(figures.get(1)).containsEntry("fits", false);
        assertThat(figures.get(2)).containsEntry("contextWindow", null).containsEntry("fits", null);
    }
}
