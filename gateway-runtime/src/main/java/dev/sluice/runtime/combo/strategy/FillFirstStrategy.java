package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;

/**
 * {@code fill-first}: targets always in list order, so the first is drained until it is excluded or
 * fails, then the next.
 */
final class FillFirstStrategy implements ComboStrategy {

    static final String NAME = "fill-first";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, Orders.LIST);
    }
}
