package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;

/**
 * {@code p2c}: of two distinct random targets the less loaded goes first (fewer in-flight, then
 * fewer uses, then list order), the rest follow by the same load order.
 */
final class PowerOfTwoChoicesStrategy implements ComboStrategy {

    static final String NAME = "p2c";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        int n = eligible.size();
        if (n == 1) {
            return List.copyOf(eligible);
        }
        int a = context.random().nextInt(n);
        int b = context.random().nextInt(n - 1);
        if (b >= a) {
            b++;
        }
        ComboTargetView ta = eligible.get(a);
        ComboTargetView tb = eligible.get(b);
        ComboTargetView first = Orders.LOAD.compare(ta, tb) <= 0 ? ta : tb;
        return Orders.firstThen(first, eligible, Orders.LOAD);
    }
}
