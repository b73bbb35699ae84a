package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.List;

/**
 * {@code lkgp} (last known good provider): the target with the most recent {@code lastSuccessAt}
 * first (ties and no success at all: priority order), the rest in priority order.
 */
final class LastKnownGoodStrategy implements ComboStrategy {

    static final String NAME = "lkgp";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        ComboTargetView best = null;
        for (ComboTargetView t : eligible) {
            if (t.lastSuccessAt() != null && (best == null || t.lastSuccessAt() > best.lastSuccessAt()
                    || t.lastSuccessAt().longValue() == best.lastSuccessAt() && Orders.PRIORITY.compare(t, best) < 0)) {
                best = t;
            }
        }
        return best == null ? Orders.sorted(eligible, Orders.PRIORITY) : Orders.firstThen(best, eligible, Orders.PRIORITY);
    }
}
