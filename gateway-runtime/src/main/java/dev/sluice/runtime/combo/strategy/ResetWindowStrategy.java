package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.List;

/**
 * {@code reset-window} (aliases {@code weekly-reset}, {@code reset-window-order}; issue 34): the
 * targets whose longest announced quota window ends soonest come first
 * ({@link ComboTargetView#quotaWindowResetAt()}: a subscription's weekly window before its 5-hour
 * one), so that quota which would expire unused is spent first; a window already ended counts as
 * ending now; targets that announce no window come last; ties by priority.
 *
 * <p>Unlike {@code reset-aware}, which takes the earliest reset of any announced limit (often a
 * per-minute request limit) and then the share left, this one looks only at the long window that
 * decides whether a subscription's quota is wasted.
 */
final class ResetWindowStrategy implements ComboStrategy {

    static final String NAME = "reset-window";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        long now = context.nowMillis();
        Comparator<ComboTargetView> order = Comparator
                .comparing((ComboTargetView t) -> t.quotaWindowResetAt() == null ? null : Math.max(t.quotaWindowResetAt(), now),
                        Comparator.nullsLast(Comparator.<Long>naturalOrder()))
                .thenComparing(Orders.PRIORITY);
        return Orders.sorted(eligible, order);
    }
}
