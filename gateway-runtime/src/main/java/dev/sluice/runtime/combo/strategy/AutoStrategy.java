package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code auto} (issue 34): each target scores the weighted mean of six parts, each 0–1 (higher is
 * better), and the targets go in descending score (ties by priority):
 * <ul>
 * <li>{@code health}: {@code (1 - failureRate) / (1 + heldConnections)} — the decayed share of its
 * recent attempts that failed, and its connections a breaker, cooldown or lockout holds back;
 * <li>{@code quota}: the share of quota its connection announced left (unknown: 0.5);
 * <li>{@code latency}: the fastest target's median latency over its own (unknown: 0.5);
 * <li>{@code cost}: the cheapest target's cost per 1k tokens over its own (unknown: 0);
 * <li>{@code context}: {@code 1 - used/2}, where {@code used} is the share of its context window the
 * request would fill (unknown: 0.5); targets known too small are held back as
 * {@code context-optimized} does;
 * <li>{@code tier}: its catalog tier over the largest tier among the targets (unknown: 0).
 * </ul>
 * Weights come from {@code strategyOptions.preset} ({@code balanced}, {@code fast}, {@code cheap},
 * {@code smart}) and {@code strategyOptions.weights} ({@link AutoWeights}). A share of requests
 * ({@code strategyOptions.exploration}, default {@value #DEFAULT_EXPLORATION}) starts at a target
 * drawn uniformly from all but the best, so that the figures of the others stay fresh; the rest
 * follow in score order. Explain shows the order without exploration. Cost: six parts per eligible
 * target and a sort; no I/O.
 */
final class AutoStrategy implements ComboStrategy {

    static final String NAME = "auto";
    /** Option: the weights preset. */
    static final String PRESET = "preset";
    /** Option: part weights. */
    static final String WEIGHTS = "weights";
    /** Option: the exploration share, 0–1. */
    static final String EXPLORATION = "exploration";
    /** The default exploration share. */
    static final double DEFAULT_EXPLORATION = 0.05;
    /** The most exploration share a combo may set. */
    static final double MAX_EXPLORATION = 0.5;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void checkOptions(Map<String, Object> options) {
        AutoWeights.from(options);
        exploration(options);
    }

    @Override
    public String holdBack(ComboContext context, ComboTargetView target) {
        return ContextFit.of(context.request(), target).tooSmall() ? CONTEXT_LENGTH_EXCEEDED : null;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        List<ComboTargetView> ranked = ranked(context, eligible);
        double share = exploration(context.options());
        if (ranked.size() > 1 && share > 0 && context.random().nextDouble() < share) {
            ComboTargetView first = ranked.get(1 + context.random().nextInt(ranked.size() - 1));
            List<ComboTargetView> out = new ArrayList<>(ranked.size());
            out.add(first);
            for (ComboTargetView t : ranked) {
                if (t != first) {
                    out.add(t);
                }
            }
            return List.copyOf(out);
        }
        return ranked;
    }

    @Override
    public List<ComboTargetView> preview(ComboContext context, List<ComboTargetView> eligible) {
        return ranked(context, eligible);
    }

    @Override
    public Map<Integer, Map<String, Object>> figures(ComboContext context, List<ComboTargetView> eligible) {
        AutoWeights w = weights(context.options());
        Scores scores = new Scores(context, eligible);
        Map<Integer, Map<String, Object>> out = new LinkedHashMap<>();
        for (ComboTargetView t : eligible) {
            Map<String, Object> f = new LinkedHashMap<>();
            double[] parts = scores.parts(t);
            f.put("score", round(scores.score(parts, w)));
            Map<String, Object> p = new LinkedHashMap<>();
            for (int i = 0; i < AutoWeights.PARTS.size(); i++) {
                p.put(AutoWeights.PARTS.get(i), round(parts[i]));
            }
            f.put("parts", p);
            f.put("weights", w.parts());
            f.put("explorationShare", exploration(context.options()));
            out.put(t.index(), f);
        }
        return out;
    }

    /** The targets in descending score, ties by priority. */
    private static List<ComboTargetView> ranked(ComboContext context, List<ComboTargetView> eligible) {
        AutoWeights w = weights(context.options());
        Scores scores = new Scores(context, eligible);
        Map<ComboTargetView, Double> score = new IdentityHashMap<>(eligible.size() * 2);
        for (ComboTargetView t : eligible) {
            score.put(t, scores.score(scores.parts(t), w));
        }
        Comparator<ComboTargetView> order = Comparator.comparingDouble((ComboTargetView t) -> score.get(t)).reversed()
                .thenComparing(Orders.PRIORITY);
        return Orders.sorted(eligible, order);
    }

    private static AutoWeights weights(Map<String, Object> options) {
        try {
            return AutoWeights.from(options);
        } catch (IllegalArgumentException e) {
            return AutoWeights.BALANCED; // checked when the combo was saved; a plugin-era combo falls back
        }
    }

    static double exploration(Map<String, Object> options) {
        Object v = options.get(EXPLORATION);
        if (v == null) {
            return DEFAULT_EXPLORATION;
        }
        if (!(v instanceof Number n) || !(n.doubleValue() >= 0) || n.doubleValue() > MAX_EXPLORATION) {
            throw new IllegalArgumentException("strategyOptions.exploration must be a share from 0 to " + MAX_EXPLORATION);
        }
        return n.doubleValue();
    }

    private static double round(double v) {
        return Math.round(v * 10_000) / 10_000d;
    }

    /** The parts of every target, with the figures that normalise them (fastest, cheapest, largest tier). */
    private static final class Scores {
        private final ComboContext context;
        private long fastest = Long.MAX_VALUE;
        private double cheapest = Double.MAX_VALUE;
        private int largestTier;

        Scores(ComboContext context, List<ComboTargetView> eligible) {
            this.context = context;
            for (ComboTargetView t : eligible) {
                if (t.latencyP50Ms() != null) {
                    fastest = Math.min(fastest, t.latencyP50Ms());
                }
                Double cost = cost(t);
                if (cost != null) {
                    cheapest = Math.min(cheapest, cost);
                }
                if (t.facts().tier() != null) {
                    largestTier = Math.max(largestTier, t.facts().tier());
                }
            }
        }

        double[] parts(ComboTargetView t) {
            double failures = t.failureRate() == null ? 0 : t.failureRate();
            double health = (1 - failures) / (1 + t.heldConnections());
            Double remaining = Orders.knownQuota(t);
            double quota = remaining == null ? 0.5 : remaining;
            Long p50 = t.latencyP50Ms();
            double latency = p50 == null ? 0.5 : p50 <= 0 ? 1 : Math.max(0, (double) Math.max(fastest, 0) / p50);
            Double c = cost(t);
            double cost = c == null ? 0 : c <= 0 ? 1 : cheapest / c;
            ContextFit fit = ContextFit.of(context.request(), t);
            double context = fit.known() ? 1 - fit.used() / 2 : 0.5;
            Integer tier = t.facts().tier();
            double size = tier == null ? 0 : largestTier == 0 ? 1 : (double) tier / largestTier;
            return new double[] {health, quota, Math.min(1, latency), Math.min(1, cost), context, size};
        }

        double score(double[] parts, AutoWeights w) {
            double sum = 0;
            double weights = 0;
            for (int i = 0; i < parts.length; i++) {
                double weight = w.of(AutoWeights.PARTS.get(i));
                sum += weight * parts[i];
                weights += weight;
            }
            return weights == 0 ? 0 : sum / weights;
        }

        private static Double cost(ComboTargetView t) {
            Double c = t.costPer1kTokens();
            return c == null || c.isNaN() || c < 0 ? null : c;
        }
    }
}
