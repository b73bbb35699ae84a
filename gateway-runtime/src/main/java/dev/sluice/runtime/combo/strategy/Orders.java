package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboTargetView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Orderings shared by several strategies. */
final class Orders {

    /** The combo's list order. */
    static final Comparator<ComboTargetView> LIST = Comparator.comparingInt(ComboTargetView::index);

    /** Ascending priority, ties in list order. */
    static final Comparator<ComboTargetView> PRIORITY = Comparator.comparingInt(ComboTargetView::priority).thenComparing(LIST);

    /** Ascending in-flight requests, then fewer uses, then list order. */
    static final Comparator<ComboTargetView> LOAD = Comparator.comparingLong(ComboTargetView::inFlight)
            .thenComparingLong(ComboTargetView::uses)
            .thenComparing(LIST);

    /**
     * Descending {@code quotaRemaining}, unknown (null or NaN) after every known share; callers add
     * their own tie-break.
     */
    static final Comparator<ComboTargetView> MOST_REMAINING =
            Comparator.comparing(Orders::knownQuota, Comparator.nullsLast(Comparator.<Double>reverseOrder()));

    private Orders() {
    }

    /**
     * The target's known remaining quota share.
     *
     * @param target the target
     * @return the share (0–1, with -0.0 folded into 0.0 so it ties with 0.0), or null when unknown
     *     (null or NaN)
     */
    static Double knownQuota(ComboTargetView target) {
        Double remaining = target.quotaRemaining();
        return remaining == null || remaining.isNaN() ? null : remaining + 0.0;
    }

    /**
     * The targets sorted.
     *
     * @param targets the targets
     * @param order the order
     * @return a new immutable list
     */
    static List<ComboTargetView> sorted(List<ComboTargetView> targets, Comparator<ComboTargetView> order) {
        List<ComboTargetView> copy = new ArrayList<>(targets);
        copy.sort(order);
        return List.copyOf(copy);
    }

    /**
     * One target first, then the others in the given order.
     *
     * @param first the first target (one of {@code targets}, found by identity)
     * @param targets all targets
     * @param rest the order of the others
     * @return a new immutable list
     */
    static List<ComboTargetView> firstThen(ComboTargetView first, List<ComboTargetView> targets, Comparator<ComboTargetView> rest) {
        List<ComboTargetView> others = new ArrayList<>(targets.size());
        boolean skipped = false;
        for (ComboTargetView t : targets) {
            if (!skipped && t == first) {
                skipped = true;
            } else {
                others.add(t);
            }
        }
        others.sort(rest);
        others.addFirst(first);
        return List.copyOf(others);
    }
}
