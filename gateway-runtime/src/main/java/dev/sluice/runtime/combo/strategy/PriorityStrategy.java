package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;

/** {@code priority}: targets in ascending {@code priority}, ties in list order. */
final class PriorityStrategy implements ComboStrategy {

    static final String NAME = "priority";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, Orders.PRIORITY);
    }
}
