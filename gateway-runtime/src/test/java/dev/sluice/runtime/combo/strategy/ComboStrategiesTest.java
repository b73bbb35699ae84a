package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.ctx;
import static dev.sluice.runtime.combo.strategy.Views.indices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The strategy registry and the permutation contract of every built-in strategy (SPEC CO-2). */
class ComboStrategiesTest {

    /** A plugin's strategy, for the registry tests. */
    private record Contributed(String name) implements ComboStrategy {
        @Override
        public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
            return eligible;
        }
    }

    @Test
    void builtInHasTheTwentyOneStrategiesByExactName_CO2_QC3_issue34() {
        ComboStrategies registry = ComboStrategies.builtIn();

        assertThat(registry.names()).containsExactly("priority", "fill-first", "weighted", "round-robin", "random",
                "strict-random", "p2c", "least-used", "cost-optimized", "lkgp", "reset-aware", "headroom", "quota-weighted", "quota-share",
                "reset-window", "cache-optimized", "context-optimized", "auto", "context-relay", "pipeline", "fusion");
        for (String name : registry.names()) {
            assertThat(registry.find(name)).get().extracting(ComboStrategy::name).isEqualTo(name);
        }
        assertThat(registry.find("Priority")).isEmpty();
        assertThat(registry.find("round_robin")).isEmpty();
        assertThat(registry.find(null)).isEmpty();
    }

    @Test
    void contributedStrategiesAreAddedInOrderToANewRegistry_CO2() {
        ComboStrategies builtIn = ComboStrategies.builtIn();
        ComboStrategy shadow = new Contributed("shadow");

        ComboStrategies all = builtIn.with(List.of(shadow, new Contributed("ab-test")));

        assertThat(all.find("shadow")).containsSame(shadow);
        assertThat(all.names()).endsWith("shadow", "ab-test").hasSize(23);
        assertThat(builtIn.names()).hasSize(21).doesNotContain("shadow");
    }

    @Test
    void aliasesFindTheStrategyTheyStandForAndCannotBeTakenByAPlugin_issue34() {
        ComboStrategies registry = ComboStrategies.builtIn();

        assertThat(registry.find("weekly-reset")).get().extracting(ComboStrategy::name).isEqualTo("reset-window");
        assertThat(registry.find("reset-window-order")).containsSame(registry.find("reset-window").orElseThrow());
        assertThat(registry.aliases()).containsEntry("weekly-reset", "reset-window").containsEntry("context", "context-optimized");
        assertThat(registry.find("context")).containsSame(registry.find("context-optimized").orElseThrow());
        assertThat(registry.names()).doesNotContain("weekly-reset");
        assertThatThrownBy(() -> registry.with(List.of(new Contributed("weekly-reset"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'weekly-reset'").hasMessageContaining("'reset-window'");
    }

    @Test
    void aDuplicateNameIsRefusedNamingBothStrategies_CO2() {
        ComboStrategies builtIn = ComboStrategies.builtIn();

        assertThatThrownBy(() -> builtIn.with(List.of(new Contributed("round-robin"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'round-robin'")
                .hasMessageContaining(Contributed.class.getName())
                .hasMessageContaining(RoundRobinStrategy.class.getName());
        assertThatThrownBy(() -> builtIn.with(List.of(new Contributed("headroom"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'headroom'")
                .hasMessageContaining(HeadroomStrategy.class.getName());
        assertThatThrownBy(() -> builtIn.with(List.of(new Contributed("x"), new Contributed("x"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'x'");
    }

    @Test
    void aMalformedNameIsRefused_CO2() {
        ComboStrategies builtIn = ComboStrategies.builtIn();

        for (String bad : List.of("Headroom", "head room", "", "reset_aware")) {
            assertThatThrownBy(() -> builtIn.with(List.of(new Contributed(bad))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(Contributed.class.getName());
        }
    }

    @Test
    void eachBuiltInRegistryHasItsOwnState_CO2() {
        ComboContext ctx = ctx("c", new SplittableRandom(1));
        List<ComboTargetView> targets = Views.plain(0, 1, 2);
        ComboStrategy first = ComboStrategies.builtIn().find("round-robin").orElseThrow();
        ComboStrategy second = ComboStrategies.builtIn().find("round-robin").orElseThrow();

        first.order(ctx, targets);

        assertThat(indices(second.order(ctx, targets))).containsExactly(0, 1, 2);
    }

    @Test
    void everyStrategyReturnsEachEligibleTargetExactlyOnce_CO2() {
        ComboStrategies registry = ComboStrategies.builtIn();
        SplittableRandom gen = new SplittableRandom(123);
        ComboContext ctx = ctx("prop", new SplittableRandom(321));
        ComboContext other = ctx("prop-2", new SplittableRandom(654));

        for (int round = 0; round < 500; round++) {
            List<ComboTargetView> eligible = randomTargets(gen);
            for (String name : registry.names()) {
                ComboStrategy s = registry.find(name).orElseThrow();
                List<ComboTargetView> order = s.order(round % 2 == 0 ? ctx : other, eligible);
                assertThat(order).as("%s over %s", name, eligible).hasSameSizeAs(eligible).containsExactlyInAnyOrderElementsOf(eligible);
            }
        }
    }

    /**
     * 1–8 targets with distinct ascending indices out of 0–11 and random observations; quota shares
     * of 0, ½, 1 or unknown and resets around {@link Views#NOW}, so ties, zeros and past resets
     * occur.
     */
    private static List<ComboTargetView> randomTargets(SplittableRandom gen) {
        int size = gen.nextInt(1, 9);
        List<Integer> pool = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            pool.add(i);
        }
        java.util.Collections.shuffle(pool, new java.util.Random(gen.nextLong()));
        List<Integer> chosen = pool.subList(0, size).stream().sorted().toList();
        List<ComboTargetView> targets = new ArrayList<>();
        for (int index : chosen) {
            targets.add(new ComboTargetView(index, "p/m" + index, gen.nextBoolean() ? null : "conn" + index, gen.nextInt(0, 4),
                    gen.nextInt(0, 4), gen.nextInt(4) == 0 ? null : (double) gen.nextInt(0, 3), gen.nextLong(0, 4),
                    gen.nextLong(0, 4), gen.nextBoolean() ? null : gen.nextLong(0, 5), gen.nextBoolean() ? null : gen.nextLong(0, 5),
                    gen.nextInt(4) == 0 ? null : gen.nextInt(0, 3) / 2.0, gen.nextInt(4) == 0 ? null : gen.nextLong(0, 2 * Views.NOW)));
        }
        return targets;
    }
}
