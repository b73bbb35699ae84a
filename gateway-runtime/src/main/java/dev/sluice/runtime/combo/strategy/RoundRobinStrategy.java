package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code round-robin}: each request of a combo starts at the first eligible target whose index
 * follows the previous start's index (cyclically), and the rest follow cyclically by index.
 *
 * <p>The position is a target index, not a counter modulo the eligible count, so a target that is
 * excluded for a while is merely skipped: the others keep their turn and it rejoins in its place.
 * Where the position lives is {@link RoundRobinTurns}' business (shared by the instances in shared mode).
 */
final class RoundRobinStrategy implements ComboStrategy {

    static final String NAME = "round-robin";

    private final RoundRobinTurns turns;

    RoundRobinStrategy(RoundRobinTurns turns) {
        this.turns = turns;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        List<ComboTargetView> byIndex = Orders.sorted(eligible, Orders.LIST);
        int[] indexes = new int[byIndex.size()];
        for (int i = 0; i < indexes.length; i++) {
            indexes[i] = byIndex.get(i).index();
        }
        return rotated(byIndex, turns.take(context.comboName(), indexes) - 1);
    }

    @Override
    public List<ComboTargetView> preview(ComboContext context, List<ComboTargetView> eligible) {
        return rotated(Orders.sorted(eligible, Orders.LIST), turns.previous(context.comboName()));
    }

    @Override
    public void forget(String comboName) {
        turns.forget(comboName);
    }

    /** The targets from the first whose index follows {@code previous}, cyclically. */
    private static List<ComboTargetView> rotated(List<ComboTargetView> byIndex, int previous) {
        int start = firstAfter(byIndex, previous);
        List<ComboTargetView> ordered = new ArrayList<>(byIndex.size());
        ordered.addAll(byIndex.subList(start, byIndex.size()));
        ordered.addAll(byIndex.subList(0, start));
        return List.copyOf(ordered);
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
