package dev.sluice.runtime.combo.strategy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The weights of {@code auto}'s score parts (issue 34): a preset's, with any part the combo's
 * {@code strategyOptions.weights} names replaced. Parts: {@code health}, {@code quota},
 * {@code latency}, {@code cost}, {@code context}, {@code tier}; weights are non-negative numbers
 * and at least one is positive.
 *
 * @param parts part name to weight, in {@link #PARTS} order
 */
record AutoWeights(Map<String, Double> parts) {

    static final String HEALTH = "health";
    static final String QUOTA = "quota";
    static final String LATENCY = "latency";
    static final String COST = "cost";
    static final String CONTEXT = "context";
    static final String TIER = "tier";
    static final List<String> PARTS = List.of(HEALTH, QUOTA, LATENCY, COST, CONTEXT, TIER);

    /** {@code auto}: health first, then quota and latency, then cost and context fit. */
    static final AutoWeights BALANCED = of(0.35, 0.20, 0.20, 0.15, 0.10, 0);
    /** {@code auto/fast}: latency first. */
    static final AutoWeights FAST = of(0.25, 0.10, 0.60, 0, 0.05, 0);
    /** {@code auto/cheap}: cost first. */
    static final AutoWeights CHEAP = of(0.25, 0.10, 0, 0.60, 0.05, 0);
    /** {@code auto/smart}: the largest model by catalog tier first. */
    static final AutoWeights SMART = of(0.25, 0.10, 0, 0, 0.05, 0.60);

    /** Presets by {@code strategyOptions.preset}. */
    static final Map<String, AutoWeights> PRESETS = Map.of("balanced", BALANCED, "fast", FAST, "cheap", CHEAP, "smart", SMART);

    private static AutoWeights of(double health, double quota, double latency, double cost, double context, double tier) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(HEALTH, health);
        m.put(QUOTA, quota);
        m.put(LATENCY, latency);
        m.put(COST, cost);
        m.put(CONTEXT, context);
        m.put(TIER, tier);
        return new AutoWeights(java.util.Collections.unmodifiableMap(m));
    }

    double of(String part) {
        return parts.get(part);
    }

    /**
     * The weights a combo's options give.
     *
     * @param options the strategy options
     * @return the weights
     * @throws IllegalArgumentException naming a bad option
     */
    static AutoWeights from(Map<String, Object> options) {
        Object presetName = options.get(AutoStrategy.PRESET);
        AutoWeights base = BALANCED;
        if (presetName != null) {
            base = presetName instanceof String s ? PRESETS.get(s) : null;
            if (base == null) {
                throw new IllegalArgumentException("strategyOptions.preset must be one of balanced, fast, cheap, smart");
            }
        }
        Object w = options.get(AutoStrategy.WEIGHTS);
        if (w == null) {
            return base;
        }
        if (!(w instanceof Map<?, ?> given)) {
            throw new IllegalArgumentException("strategyOptions.weights must be an object of " + String.join(", ", PARTS));
        }
        Map<String, Double> m = new LinkedHashMap<>(base.parts);
        for (Map.Entry<?, ?> e : given.entrySet()) {
            String part = String.valueOf(e.getKey());
            if (!PARTS.contains(part)) {
                throw new IllegalArgumentException("strategyOptions.weights." + part + " is not a score part (known: " + String.join(", ", PARTS)
                        + ")");
            }
            if (!(e.getValue() instanceof Number n) || !(n.doubleValue() >= 0) || Double.isInfinite(n.doubleValue())) {
                throw new IllegalArgumentException("strategyOptions.weights." + part + " must be a non-negative number");
            }
            m.put(part, n.doubleValue());
        }
        if (m.values().stream().allMatch(v -> v == 0)) {
            throw new IllegalArgumentException("strategyOptions.weights must give at least one part a positive weight");
        }
        return new AutoWeights(java.util.Collections.unmodifiableMap(m));
    }
}
