package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.List;

/**
 * {@code weighted}: the first target is drawn with probability weight / Σ weights (all weights 0
 * gives list order), the rest follow by descending weight, ties in list order.
 */
final class WeightedStrategy implements ComboStrategy {

    static final String NAME = "weighted";

    private static final Comparator<ComboTargetView> HEAVIEST_FIRST =
            Comparator.comparingInt(ComboTargetView::weight).reversed().thenComparing(Orders.LIST);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        long total = 0;
        for (ComboTargetView t : eligible) {
            total += t.weight();
        }
        if (total == 0) {
            return Orders.sorted(eligible, Orders.LIST);
        }
        long draw = context.random().nextLong(total);
        ComboTargetView first = null;
        for (ComboTargetView t : eligible) {
            draw -= t.weight();
            if (draw < 0) {
                first = t;
                break;
            }
        }
        return Orders.firstThen(first, eligible, HEAVIEST_FIRST);
    }
}
