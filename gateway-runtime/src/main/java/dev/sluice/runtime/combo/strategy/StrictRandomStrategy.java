package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * {@code strict-random}: a shuffle bag per combo, so each cycle starts every target (by index)
 * once in random order before the bag is refilled; the rest follow in the bag's remaining order,
 * then the targets already drawn this cycle in list order.
 *
 * <p>Exclusions: an ineligible target is skipped without being consumed, so it keeps its place in
 * the cycle and is drawn later in the same cycle if it becomes eligible again before the cycle
 * ends. A cycle ends when no eligible target is left undrawn; targets still excluded then simply
 * miss that cycle, so a long exclusion never stalls the others. A target first seen mid-cycle
 * (it was excluded when the cycle began) joins the bag at a random place.
 *
 * <p>The bag is kept as a random rank per undrawn index (a uniformly random rank per target gives a
 * uniformly random order) and the set of indices drawn this cycle, under a per-combo lock held for
 * microseconds.
 */
final class StrictRandomStrategy implements ComboStrategy {

    static final String NAME = "strict-random";

    private final ConcurrentMap<String, Bag> bags = new ConcurrentHashMap<>();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return bags.computeIfAbsent(context.comboName(), k -> new Bag()).order(context, eligible, true);
    }

    @Override
    public List<ComboTargetView> preview(ComboContext context, List<ComboTargetView> eligible) {
        return bags.computeIfAbsent(context.comboName(), k -> new Bag()).order(context, eligible, false);
    }

    @Override
    public void forget(String comboName) {
        bags.remove(comboName);
    }

    /** One combo's shuffle bag. */
    private static final class Bag {

        /** The rank (bag position) of each undrawn index seen this cycle. */
        private final Map<Integer, Double> ranks = new HashMap<>();

        /** The indices drawn this cycle. */
        private final Set<Integer> drawn = new HashSet<>();

        /** The order; {@code draw} false previews it: ranks a later draw uses may be given, nothing is drawn. */
        synchronized List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible, boolean draw) {
            if (eligible.stream().allMatch(t -> drawn.contains(t.index()))) {
                if (!draw) {
                    // a new cycle would start with a fresh shuffle: the preview is one such shuffle
                    List<ComboTargetView> shuffled = new ArrayList<>(eligible);
                    java.util.Collections.shuffle(shuffled, context.random());
                    return List.copyOf(shuffled);
                }
                ranks.clear();
                drawn.clear();
            }
            for (ComboTargetView t : eligible) {
                if (!drawn.contains(t.index()) && !ranks.containsKey(t.index())) {
                    ranks.put(t.index(), context.random().nextDouble());
                }
            }
            List<ComboTargetView> ordered = new ArrayList<>(eligible.size());
            List<ComboTargetView> drawnBefore = new ArrayList<>();
            for (ComboTargetView t : eligible) {
                (drawn.contains(t.index()) ? drawnBefore : ordered).add(t);
            }
            ordered.sort(Comparator.<ComboTargetView>comparingDouble(t -> ranks.get(t.index())).thenComparing(Orders.LIST));
            ComboTargetView first = ordered.getFirst();
            if (draw) {
                drawn.add(first.index());
                ranks.remove(first.index());
            }
            drawnBefore.sort(Orders.LIST);
            ordered.addAll(drawnBefore);
            return List.copyOf(ordered);
        }
    }
}
