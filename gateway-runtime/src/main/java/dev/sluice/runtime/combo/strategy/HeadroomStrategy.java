package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.List;

/**
 * {@code headroom}: descending {@code quotaRemaining}, targets of unknown remaining quota (null or
 * NaN) after every known one, ties in priority order.
 */
final class HeadroomStrategy implements ComboStrategy {

    static final String NAME = "headroom";

    private static final Comparator<ComboTargetView> ORDER = Orders.MOST_REMAINING.thenComparing(Orders.PRIORITY);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, ORDER);
    }
}
