package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * Test fixtures: target views with defaults (weight 1, priority = index + 1, nothing observed) and
 * contexts whose clock reads {@link #NOW}.
 */
final class Views {

    /** The {@link ComboContext#nowMillis()} of {@link #ctx}. */
    static final long NOW = 1_000L;

    private Views() {
    }

    /** A builder of one target view. */
    static final class B {
        private final int index;
        private int weight = 1;
        private int priority;
        private Double cost;
        private long inFlight;
        private long uses;
        private Long lastUsedAt;
        private Long lastSuccessAt;
        private Double quotaRemaining;
        private Long quotaResetAt;
        private Long windowResetAt;
        private dev.sluice.api.ModelFacts.Builder facts = dev.sluice.api.ModelFacts.builder();
        private Long p50;
        private Double failures;
        private int held;

        private B(int index) {
            this.index = index;
            this.priority = index + 1;
        }

        B weight(int w) {
            weight = w;
            return this;
        }

        B priority(int p) {
            priority = p;
            return this;
        }

        B cost(Double c) {
            cost = c;
            return this;
        }

        B inFlight(long n) {
            inFlight = n;
            return this;
        }

        B uses(long n) {
            uses = n;
            return this;
        }

        B lastUsedAt(Long at) {
            lastUsedAt = at;
            return this;
        }

        B lastSuccessAt(Long at) {
            lastSuccessAt = at;
            return this;
        }

        B quota(Double remaining) {
            quotaRemaining = remaining;
            return this;
        }

        B resetAt(Long at) {
            quotaResetAt = at;
            return this;
        }

        B windowResetAt(Long at) {
            windowResetAt = at;
            return this;
        }

        B window(long tokens) {
            facts.contextWindow(tokens);
            return this;
        }

        B tier(int value) {
            facts.tier(value);
            return this;
        }

        B p50(long ms) {
            p50 = ms;
            return this;
        }

        B failures(double rate) {
            failures = rate;
            return this;
        }

        B held(int connections) {
            held = connections;
            return this;
        }

        ComboTargetView build() {
            return new ComboTargetView(index, "p/m" + index, null, weight, priority, cost, inFlight, uses, lastUsedAt, lastSuccessAt,
                    quotaRemaining, quotaResetAt, windowResetAt, facts.build(), p50, failures, held);
        }
    }

    static B t(int index) {
        return new B(index);
    }

    /** Plain targets with the given indices. */
    static List<ComboTargetView> plain(int... indices) {
        return java.util.Arrays.stream(indices).mapToObj(i -> t(i).build()).toList();
    }

    static List<ComboTargetView> list(B... builders) {
        return java.util.Arrays.stream(builders).map(B::build).toList();
    }

    static ComboContext ctx(String combo, RandomGenerator random) {
        return new ComboContext(combo, Map.of(), random, NOW);
    }

    static List<Integer> indices(List<ComboTargetView> targets) {
        return targets.stream().map(ComboTargetView::index).toList();
    }
}
