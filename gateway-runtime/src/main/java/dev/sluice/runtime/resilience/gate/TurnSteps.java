package dev.sluice.runtime.resilience.gate;

import dev.sluice.runtime.resilience.gate.ConnectionGates.Entry;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Limits;
import dev.sluice.runtime.resilience.gate.ConnectionGates.Permit;
import java.util.function.BooleanSupplier;

/**
 * What a request's turn at a connection goes through besides its gate (the seam that shared mode
 * decorates, issue 35): the claim it makes before it waits anywhere, asked from inside the gate's
 * critical section, and the steps after the gate granted the turn and before the request starts.
 * {@link ConnectionGates} calls these and does not know who implements them; {@link #NONE} adds
 * nothing (one instance).
 */
public interface TurnSteps {

    /** Adds nothing: the gate's turn is the request's start. */
    TurnSteps NONE = new TurnSteps() {
        @Override
        public WaitClaim claim(String connectionId, Limits limits) {
            return WaitClaim.NONE;
        }

        @Override
        public Entry granted(Turn turn, long deadline, BooleanSupplier stillWanted, WaitClaim claim) {
            return turn.permit();
        }

        @Override
        public Permit grantedAtOnce(Turn turn) {
            return turn.permit();
        }
    };

    /**
     * The claim a request that may wait makes before it does (its gate asks it, RQ-5).
     *
     * @param connectionId the connection
     * @param limits what limits the request
     * @return the claim, given up when the request's {@link ConnectionGates#enter} returns
     */
    WaitClaim claim(String connectionId, Limits limits);

    /**
     * The gate granted a request that may wait its turn: what it still waits for before it starts.
     *
     * @param turn the granted turn
     * @param deadline when the request's wait ends, epoch ms (RQ-1)
     * @param stillWanted asked while waiting; false once the client has gone (null: never asked)
     * @param claim the request's claim (made here if it waits and has not yet)
     * @return the turn's permit, or a refusal with the turn given back
     * @throws InterruptedException when the waiting thread is interrupted (the turn is given back)
     */
    Entry granted(Turn turn, long deadline, BooleanSupplier stillWanted, WaitClaim claim) throws InterruptedException;

    /**
     * The gate granted a request that may only start at once its turn.
     *
     * @param turn the granted turn
     * @return the turn's permit, or null with the turn given back
     */
    Permit grantedAtOnce(Turn turn);
}
