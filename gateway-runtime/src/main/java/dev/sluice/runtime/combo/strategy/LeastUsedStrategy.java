package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.List;

/**
 * {@code least-used}: ascending {@code uses}, ties by the older {@code lastUsedAt} (never used
 * first), then list order.
 */
final class LeastUsedStrategy implements ComboStrategy {

    static final String NAME = "least-used";

    private static final Comparator<ComboTargetView> ORDER = Comparator.comparingLong(ComboTargetView::uses)
            .thenComparing(ComboTargetView::lastUsedAt, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparing(Orders.LIST);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, ORDER);
    }
}
