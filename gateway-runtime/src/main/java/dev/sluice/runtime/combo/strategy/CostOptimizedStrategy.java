package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.List;

/**
 * {@code cost-optimized}: ascending {@code costPer1kTokens}, targets of unknown cost (null or NaN)
 * after all known ones, ties in list order.
 */
final class CostOptimizedStrategy implements ComboStrategy {

    static final String NAME = "cost-optimized";

    private static final Comparator<ComboTargetView> ORDER =
            Comparator.comparing(CostOptimizedStrategy::knownCost, Comparator.nullsLast(Comparator.<Double>naturalOrder()))
                    .thenComparing(Orders.LIST);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, ORDER);
    }

    private static Double knownCost(ComboTargetView t) {
        Double cost = t.costPer1kTokens();
        return cost == null || cost.isNaN() ? null : cost;
    }
}
