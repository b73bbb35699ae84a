package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.List;

/**
 * {@code reset-aware} (SPEC OF-4): ascending {@code quotaResetAt} with a reset at or before now
 * counting as now and unknown resets after every known one, ties by more {@code quotaRemaining}
 * (unknown after known), then priority order.
 */
final class ResetAwareStrategy implements ComboStrategy {

    static final String NAME = "reset-aware";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        long now = context.nowMillis();
        // a past reset has already refilled the quota: all of them are as good as "now", so they
        // tie and the remaining quota decides among them
        Comparator<ComboTargetView> order = Comparator
                .comparing((ComboTargetView t) -> t.quotaResetAt() == null ? null : Math.max(t.quotaResetAt(), now),
                        Comparator.nullsLast(Comparator.<Long>naturalOrder()))
                .thenComparing(Orders.MOST_REMAINING)
                .thenComparing(Orders.PRIORITY);
        return Orders.sorted(eligible, order);
    }
}
