package dev.sluice.runtime.combo.routing;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.Combo;
import java.util.HashSet;
import java.util.List;

/** A strategy's order of a request's targets, checked (CO-2): a strategy that misbehaves is not trusted. */
final class StrategyOrder {

    private static final System.Logger LOG = System.getLogger(StrategyOrder.class.getName());

    private StrategyOrder() {
    }

    /** The strategy's order; list order when the strategy is gone (a plugin that contributed it was removed). */
    static List<ComboTargetView> of(Combo combo, ComboStrategy strategy, ComboContext ctx, List<ComboTargetView> eligible) {
        if (strategy == null) {
            LOG.log(System.Logger.Level.WARNING, "combo " + combo.name() + " names unknown strategy " + combo.strategy() + "; list order used");
            return List.copyOf(eligible);
        }
        return ordered(strategy, ctx, List.copyOf(eligible));
    }

    /**
     * The strategy's order, checked: a strategy (a plugin's, say) that throws or does not return
     * each eligible target exactly once is not trusted — the list order serves instead, and the
     * server log says why.
     */
    private static List<ComboTargetView> ordered(ComboStrategy strategy, ComboContext ctx, List<ComboTargetView> eligible) {
        List<ComboTargetView> order;
        try {
            order = strategy.order(ctx, eligible);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "combo " + ctx.comboName() + ": strategy " + strategy.name() + " failed (" + e
                    + "); list order used");
            return eligible;
        }
        if (order == null || order.size() != eligible.size() || !new HashSet<>(order).equals(new HashSet<>(eligible))) {
            LOG.log(System.Logger.Level.WARNING, "combo " + ctx.comboName() + ": strategy " + strategy.name()
                    + " did not return each eligible target exactly once; list order used");
            return eligible;
        }
        return order;
    }
}
