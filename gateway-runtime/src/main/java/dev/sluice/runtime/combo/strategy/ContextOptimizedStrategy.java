package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code context-optimized} (alias {@code context}, issue 34): the targets whose context window
 * holds the request's estimated input plus its {@code max_tokens} come first, the smallest adequate
 * window first (ties by priority), so large-window models stay free for the requests only they can
 * take; targets whose window is unknown follow in priority order. Targets known to be too small are
 * held back ({@link #holdBack}): not tried at all; when that is every target, the client gets the
 * 400 {@code context_length_exceeded} an upstream would give, and no upstream is called. A request
 * of unknown size goes in window order. Cost: the input estimate (one pass over the request's text,
 * computed once per request) and a sort of the eligible targets.
 */
final class ContextOptimizedStrategy implements ComboStrategy {

    static final String NAME = "context-optimized";

    private static final Comparator<ComboTargetView> BY_WINDOW = Comparator
            .comparing((ComboTargetView t) -> t.facts().contextWindow(), Comparator.nullsLast(Comparator.<Long>naturalOrder()))
            .thenComparing(Orders.PRIORITY);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String holdBack(ComboContext context, ComboTargetView target) {
        return ContextFit.of(context.request(), target).tooSmall() ? CONTEXT_LENGTH_EXCEEDED : null;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, BY_WINDOW);
    }

    @Override
    public Map<Integer, Map<String, Object>> figures(ComboContext context, List<ComboTargetView> eligible) {
        Map<Integer, Map<String, Object>> out = new LinkedHashMap<>();
        for (ComboTargetView t : eligible) {
            ContextFit fit = ContextFit.of(context.request(), t);
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("contextWindow", fit.window());
            f.put("neededTokens", fit.needed() < 0 ? null : fit.needed());
            f.put("fits", fit.known() ? !fit.tooSmall() : null);
            out.put(t.index(), f);
        }
        return out;
    }
}
