package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code round-robin}: each request of a combo starts at the first eligible target whose index
 * follows the previous start's index (cyclically), and the rest follow cyclically by index.
 *
 * <p>The position is a target index, not a counter modulo the eligible count, so a target that is
 * excluded for a while is merely skipped: the others keep their turn and it rejoins in its place.
 */
final class RoundRobinStrategy implements ComboStrategy {

    static final String NAME = "round-robin";

    /** Before a combo's first request: the first start is the lowest eligible index. */
    private static final int NO_START_YET = -1;

    /** The previous start's target index, per combo name. */
    private final ConcurrentMap<String, AtomicInteger> previousStart = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        List<ComboTargetView> byIndex = Orders.sorted(eligible, Orders.LIST);
        AtomicInteger previous = previousStart.computeIfAbsent(context.comboName(), k -> new AtomicInteger(NO_START_YET));
        int start;
        while (true) {
            int prev = previous.get();
            start = firstAfter(byIndex, prev);
            if (previous.compareAndSet(prev, byIndex.get(start).index())) {
                break;
            }
        }
        List<ComboTargetView> ordered = new ArrayList<>(byIndex.size());
        ordered.addAll(byIndex.subList(start, byIndex.size()));
        ordered.addAll(byIndex.subList(0, start));
        return List.copyOf(ordered);
    }

    @Override
    public List<ComboTargetView> preview(ComboContext context, List<ComboTargetView> eligible) {
        List<ComboTargetView> byIndex = Orders.sorted(eligible, Orders.LIST);
        AtomicInteger previous = previousStart.get(context.comboName());
        int start = firstAfter(byIndex, previous == null ? NO_START_YET : previous.get());
        List<ComboTargetView> ordered = new ArrayList<>(byIndex.size());
        ordered.addAll(byIndex.subList(start, byIndex.size()));
        ordered.addAll(byIndex.subList(0, start));
        return List.copyOf(ordered);
    }

    @Override
    public void forget(String comboName) {
        previousStart.remove(comboName);
    }

    /** The position in {@code byIndex} of the first target whose index is greater than {@code index}, else 0. */
    private static int firstAfter(List<ComboTargetView> byIndex, int index) {
        for (int i = 0; i < byIndex.size(); i++) {
            if (byIndex.get(i).index() > index) {
                return i;
            }
        }
        return 0;
    }
}
