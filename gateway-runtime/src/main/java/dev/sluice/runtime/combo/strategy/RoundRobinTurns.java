package dev.sluice.runtime.combo.strategy;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where {@code round-robin} keeps each combo's previous start: in this instance's memory, or shared by
 * every instance (issue 37: in shared mode the turn goes round the cluster, not round each instance).
 */
public interface RoundRobinTurns {

    /** Before a combo's first request: the first start is the lowest eligible index. */
    int NO_START_YET = -1;

    /**
     * Takes the next turn: the first of {@code ascendingIndexes} greater than the previous start (else
     * the first), which becomes the previous start.
     *
     * @param combo the combo's name
     * @param ascendingIndexes the eligible targets' indexes, ascending, at least one
     * @return the index that starts this request
     */
    int take(String combo, int[] ascendingIndexes);

    /**
     * @param combo the combo's name
     * @return the previous start, or {@link #NO_START_YET}
     */
    int previous(String combo);

    /**
     * Forgets a combo's turn (deleted or replaced).
     *
     * @param combo the combo's name
     */
    void forget(String combo);

    /**
     * The first of the indexes greater than {@code previous}, else the first.
     *
     * @param ascendingIndexes ascending, at least one
     * @param previous the previous start
     * @return the next start
     */
    static int after(int[] ascendingIndexes, int previous) {
        for (int index : ascendingIndexes) {
            if (index > previous) {
                return index;
            }
        }
        return ascendingIndexes[0];
    }

    /** @return turns kept in this instance's memory */
    static RoundRobinTurns local() {
        return new RoundRobinTurns() {
            private final ConcurrentMap<String, AtomicInteger> previousStart = new ConcurrentHashMap<>();

            @Override
            public int take(String combo, int[] ascendingIndexes) {
                AtomicInteger previous = previousStart.computeIfAbsent(combo, k -> new AtomicInteger(NO_START_YET));
                while (true) {
                    int prev = previous.get();
                    int start = after(ascendingIndexes, prev);
                    if (previous.compareAndSet(prev, start)) {
                        return start;
                    }
                }
            }

            @Override
            public int previous(String combo) {
                AtomicInteger previous = previousStart.get(combo);
                return previous == null ? NO_START_YET : previous.get();
            }

            @Override
            public void forget(String combo) {
                previousStart.remove(combo);
            }
        };
    }
}
