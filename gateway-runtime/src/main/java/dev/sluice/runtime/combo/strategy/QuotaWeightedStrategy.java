package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.Comparator;
import java.util.List;

/**
 * {@code quota-weighted}: the first target is drawn with probability {@code quotaRemaining} / Σ
 * shares, an unknown share (null or NaN) counting as 1.0 and a share of 0 never drawn (every share 0
 * gives priority order), the rest follow by descending share (unknown as 1.0), ties in priority
 * order.
 */
final class QuotaWeightedStrategy implements ComboStrategy {

    static final String NAME = "quota-weighted";

    private static final Comparator<ComboTargetView> MOST_SHARE_FIRST =
            Comparator.comparingDouble(QuotaWeightedStrategy::share).reversed().thenComparing(Orders.PRIORITY);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        double total = 0;
        for (ComboTargetView t : eligible) {
            total += share(t);
        }
        if (total == 0) {
            return Orders.sorted(eligible, Orders.PRIORITY);
        }
        double draw = context.random().nextDouble(total);
        ComboTargetView first = null;
        for (ComboTargetView t : eligible) {
            double share = share(t);
            if (share == 0) {
                continue;
            }
            // the last positive share also catches a draw that rounding pushed past the running sum
            first = t;
            draw -= share;
            if (draw < 0) {
                break;
            }
        }
        return Orders.firstThen(first, eligible, MOST_SHARE_FIRST);
    }

    /** An unobserved quota counts as full: a target nobody has measured yet deserves its turn. */
    private static double share(ComboTargetView t) {
        Double known = Orders.knownQuota(t);
        return known == null ? 1.0 : known;
    }
}
