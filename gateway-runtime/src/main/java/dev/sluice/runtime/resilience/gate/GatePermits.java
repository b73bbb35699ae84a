package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Snapshot;
import java.util.HashMap;
import java.util.Map;

/**
 * The permits held on one connection: the connection's count (QC-1) and each upstream model's
 * (QC-2). Not thread-safe on its own: every call is made under the owning {@link Gate}'s lock, so
 * that both permits of a request are checked and taken in one step.
 */
final class GatePermits {

    private final Map<String, Integer> runningByModel = new HashMap<>();
    private int running;

    /** Whether the connection's cap leaves room for one more request. */
    boolean connectionFree(Limits limits) {
        return limits.connectionCap() == 0 || running < limits.connectionCap();
    }

    /** Whether the model's cap on this connection leaves room for one more request. */
    boolean modelFree(String model, Limits limits) {
        return limits.modelCap() == 0 || runningByModel.getOrDefault(model, 0) < limits.modelCap();
    }

    /**
     * Takes the model's permit, and the connection's unless the request is a QC-3 fail-open that
     * holds only the model's share.
     */
    void take(String model, boolean countsConnection) {
        if (countsConnection) {
            running++;
        }
        runningByModel.merge(model, 1, Integer::sum);
    }

    /** Gives back what {@link #take} took. */
    void release(String model, boolean countsConnection) {
        if (countsConnection) {
            running--;
        }
        runningByModel.computeIfPresent(model, (k, n) -> n == 1 ? null : n - 1);
    }

    /** The permits held now, with the given number of waiters. */
    Snapshot snapshot(int queued) {
        return new Snapshot(running, queued, Map.copyOf(runningByModel));
    }
}
