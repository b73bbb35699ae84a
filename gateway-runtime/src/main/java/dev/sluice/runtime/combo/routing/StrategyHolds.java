package dev.sluice.runtime.combo.routing;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.routing.Outcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The targets a strategy holds back for one request ({@link ComboStrategy#holdBack}, issue 34) and
 * those it keeps. A strategy that throws holds back nothing (as a request would be served in list
 * order when {@code order} throws).
 *
 * @param kept the targets that may be tried, in the given order
 * @param held target index to the reason it is not tried
 * @param request what the request needs (estimated input and max_tokens), for the client's message
 */
record StrategyHolds(List<ComboTargetView> kept, Map<Integer, String> held, String request) {

    private static final System.Logger LOG = System.getLogger(StrategyHolds.class.getName());

    static StrategyHolds of(ComboStrategy strategy, ComboContext ctx, List<ComboTargetView> eligible) {
        if (strategy == null) {
            return new StrategyHolds(eligible, Map.of(), null);
        }
        List<ComboTargetView> kept = new ArrayList<>(eligible.size());
        Map<Integer, String> held = null;
        for (ComboTargetView t : eligible) {
            String reason;
            try {
                reason = strategy.holdBack(ctx, t);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "combo " + ctx.comboName() + ": strategy " + strategy.name() + " failed to decide"
                        + " whether to hold back " + t.model() + " (" + e + "); it is tried");
                reason = null;
            }
            if (reason == null || reason.isBlank()) {
                kept.add(t);
            } else {
                if (held == null) {
                    held = new LinkedHashMap<>();
                }
                held.put(t.index(), reason);
            }
        }
        if (held == null) {
            return new StrategyHolds(eligible, Map.of(), null);
        }
        long input = ctx.request().estimatedInputTokens();
        Integer max = ctx.request().maxOutputTokens();
        String need = (input < 0 ? "unknown input" : "about " + input + " input tokens") + (max == null ? "" : " + max_tokens " + max);
        return new StrategyHolds(kept, held, need);
    }

    /** @return whether every eligible target is held back */
    boolean all() {
        return kept.isEmpty() && !held.isEmpty();
    }

    /** The client's 400 when every target is held back: no upstream is called. */
    Outcome.Unroutable refusal(String comboName) {
        Set<String> reasons = new LinkedHashSet<>(held.values());
        LOG.log(System.Logger.Level.INFO, "combo " + comboName + ": every target held back by its strategy (" + reasons + "); 400");
        if (reasons.equals(Set.of(ComboStrategy.CONTEXT_LENGTH_EXCEEDED))) {
            return new Outcome.Unroutable(comboName, Outcome.Unroutable.Why.CONTEXT_LENGTH_EXCEEDED, request);
        }
        return new Outcome.Unroutable(comboName, Outcome.Unroutable.Why.HELD_BY_STRATEGY, String.join(", ", reasons));
    }

    /** Whether an outcome is such a refusal (the emergency fallback does not apply: every model would refuse). */
    static boolean isRefusal(Outcome.Unroutable u) {
        return u.why() == Outcome.Unroutable.Why.CONTEXT_LENGTH_EXCEEDED || u.why() == Outcome.Unroutable.Why.HELD_BY_STRATEGY;
    }
}
