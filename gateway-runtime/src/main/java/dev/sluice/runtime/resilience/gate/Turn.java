package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;

/**
 * A turn a connection's gate granted, as {@link TurnSteps} see it before the request starts: what
 * it is for, the spacing in force, and the means to move its start, to hold something more with
 * its permit, or to give it back.
 */
public final class Turn {

    private final Gate gate;
    private final Permit permit;
    private final String connectionId;
    private final Limits limits;

    Turn(Gate gate, Permit permit, String connectionId, Limits limits) {
        this.gate = gate;
        this.permit = permit;
        this.connectionId = connectionId;
        this.limits = limits;
    }

    /** @return the connection */
    public String connectionId() {
        return connectionId;
    }

    /** @return the upstream model the turn is for */
    public String model() {
        return permit.model;
    }

    /** @return what limits the request */
    public Limits limits() {
        return limits;
    }

    /** @return whether the turn counts on its connection's cap (not a QC-3 fail-open) */
    public boolean countsConnection() {
        return permit.countsConnection;
    }

    /** @return the permit the request starts with */
    public Permit permit() {
        return permit;
    }

    /**
     * The spacing between starts in force (RQ-10), configured or learned.
     *
     * @param now epoch ms
     * @return ms; 0 when the connection is not paced
     */
    public long spacing(long now) {
        return gate.spacing(limits, now);
    }

    /**
     * The request really starts at {@code at}: the gate spaces the next start from there.
     *
     * @param at epoch ms
     */
    public void startsAt(long at) {
        gate.startsAt(at);
    }

    /**
     * Holds {@code alsoRelease} with the permit: run once, when the permit is released.
     *
     * @param alsoRelease what to give back with the permit
     */
    public void alsoHolds(Runnable alsoRelease) {
        permit.also = alsoRelease;
    }

    /** Releases the permit; the start the turn recorded stays spent. */
    public void release() {
        permit.release();
    }

    /** The turn did not start: its recorded start is forgotten and the permit released. */
    public void giveBack() {
        gate.notStarted(permit.takenAt);
        permit.release();
    }
}
