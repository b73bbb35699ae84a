package dev.sluice.runtime.combo.flow;

import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;

/**
 * Counts the usage of an answer a combo executor read itself (a pipeline's earlier step, a fusion
 * panel member, a summary): the client's own answer is counted by the request's telemetry, these
 * are counted here so that every upstream call's tokens show in {@code GET /api/usage}.
 */
@FunctionalInterface
public interface StepUsage {

    /** Counts nothing (tests). */
    StepUsage NONE = (caller, step, latencyMs) -> { };

    /**
     * Counts one answer, before it is closed.
     *
     * @param caller the client's caller (its key)
     * @param step the served answer
     * @param latencyMs how long it took
     */
    void count(Caller caller, Outcome.Served step, long latencyMs);
}
