package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;

/** {@code random}: a uniformly random first target, the rest in list order. */
final class RandomStrategy implements ComboStrategy {

    static final String NAME = "random";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        ComboTargetView first = eligible.get(context.random().nextInt(eligible.size()));
        return Orders.firstThen(first, eligible, Orders.LIST);
    }
}
