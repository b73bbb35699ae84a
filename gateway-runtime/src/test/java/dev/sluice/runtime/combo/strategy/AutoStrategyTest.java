package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.NOW;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.list;
import static dev.sluice.runtime.combo.strategy.Views.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboRequest;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** {@code auto} (issue 34): weighted score parts, presets, exploration on an injected random. */
class AutoStrategyTest {

    private final AutoStrategy s = new AutoStrategy();

    private static ComboContext ctx(Map<String, Object> options, RandomGenerator random) {
        return new ComboContext("c", options, random, NOW, ComboRequest.builder().estimatedInputTokens(() -> 10_000).build());
    }

    /** A random whose draws are fixed: {@code nextDouble} gives {@code d}, {@code nextInt(bound)} gives 0. */
    private static RandomGenerator fixed(double d) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return 0;
            }

            @Override
            public double nextDouble() {
                return d;
            }

            @Override
            public int nextInt(int bound) {
                return 0;
            }
        };
    }

    /**
     * The worked example of docs/combos.md: A is fast but failing, B healthy and cheap, C healthy,
     * slow, expensive and the largest model.
     */
    private static List<ComboTargetView> example() {
        return list(t(0).p50(400).failures(0.6).cost(0.002).quota(0.9).window(128_000).tier(2),
                t(1).p50(800).failures(0.0).cost(0.001).quota(0.5).window(128_000).tier(1),
                t(2).p50(1_600).cost(0.01).window(200_000).tier(3));
    }

    private List<Integer> preview(Map<String, Object> options) {
        return indices(s.preview(ctx(options, fixed(0.99)), example()));
    }

    @Test
    void theBalancedScoreOrdersTheWorkedExample_issue34() {
        // A: .35·.4 + .2·.9 + .2·1 + .15·.5 + .1·.961 = .6911; B: .35 + .1 + .1 + .15 + .0961 = .7961; C: .35 + .1 + .05 + .015 + .0975 = .6125
        assertThat(preview(Map.of())).containsExactly(1, 0, 2);
        Map<String, Object> f = s.figures(ctx(Map.of(), fixed(0.99)), example()).get(1);
        assertThat((Double) f.get("score")).isEqualTo(0.7961);
        assertThat(f.get("explorationShare")).isEqualTo(0.05);
        assertThat(((Map<?, ?>) f.get("parts")).get("health")).isEqualTo(1.0);
    }

    @Test
    void presetsPutTheirPartFirst_issue34() {
        // fast: A's latency outweighs its failures (.838 against B's .648) …
        assertThat(preview(Map.of("preset", "fast"))).containsExactly(0, 1, 2);
        // … unless the combo weighs health more
        assertThat(preview(Map.of("preset", "fast", "weights", Map.of("health", 1)))).startsWith(1);
        assertThat(preview(Map.of("preset", "cheap"))).containsExactly(1, 0, 2);
        assertThat(preview(Map.of("preset", "smart"))).containsExactly(2, 0, 1);
    }

    @Test
    void heldConnectionsLowerHealth_issue34() {
        var targets = list(t(0).held(1), t(1));
        assertThat(indices(s.preview(ctx(Map.of("weights", Map.of("health", 1, "quota", 0, "latency", 0, "cost", 0, "context", 0)),
                fixed(0.99)), targets))).containsExactly(1, 0);
    }

    @Test
    void aShareOfRequestsExploresAndExplainDoesNot_issue34() {
        Map<String, Object> options = Map.of("exploration", 0.1);
        // a draw under the share starts at a target other than the best (nextInt(2) = 0 → the second best)
        assertThat(indices(s.order(ctx(options, fixed(0.05)), example()))).containsExactly(0, 1, 2);
        assertThat(indices(s.order(ctx(options, fixed(0.2)), example()))).containsExactly(1, 0, 2);
        assertThat(indices(s.preview(ctx(options, fixed(0.05)), example()))).containsExactly(1, 0, 2);
        // over many requests the share is the option's
        SplittableRandom random = new SplittableRandom(34);
        int explored = 0;
        for (int i = 0; i < 10_000; i++) {
            if (s.order(ctx(Map.of(), random), example()).getFirst().index() != 1) {
                explored++;
            }
        }
        assertThat(explored).isBetween(400, 600);
    }

    @Test
    void badOptionsAreRefusedNamingTheOption_issue34() {
        assertThatThrownBy(() -> s.checkOptions(Map.of("weights", Map.of("speed", 1)))).hasMessageContaining("weights.speed");
        assertThatThrownBy(() -> s.checkOptions(Map.of("weights", Map.of("cost", -1)))).hasMessageContaining("weights.cost");
        assertThatThrownBy(() -> s.checkOptions(Map.of("preset", "turbo"))).hasMessageContaining("preset");
        assertThatThrownBy(() -> s.checkOptions(Map.of("exploration", 0.9))).hasMessageContaining("exploration");
        assertThatThrownBy(() -> s.checkOptions(Map.of("weights", Map.of("health", 0, "quota", 0, "latency", 0, "cost", 0,
                "context", 0)))).hasMessageContaining("positive");
        s.checkOptions(Map.of("preset", "cheap", "weights", Map.of("cost", 2), "exploration", 0));
    }

    @Test
    void aTargetTooSmallForTheRequestIsHeldBack_issue34() {
        ComboContext big = new ComboContext("c", Map.of(), fixed(0.99), NOW,
                ComboRequest.builder().estimatedInputTokens(() -> 150_000).build());
        assertThat(s.holdBack(big, example().get(0))).isEqualTo("context_length_exceeded");
        assertThat(s.holdBack(big, example().get(2))).isNull();
    }
}
