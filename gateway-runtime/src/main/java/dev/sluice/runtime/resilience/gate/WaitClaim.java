package dev.sluice.runtime.resilience.gate;

/**
 * A request's claim to wait on its connection (RQ-5), made the first time it would wait and given
 * up when {@link ConnectionGates#enter} returns, whether it started or left. The gate asks
 * {@link #pending()} under its lock and, if so, {@link #claim()} with the lock let go, then looks
 * at everything again. {@link #NONE} claims nothing: the gate's own queue depth is the only bound.
 * Used by the request's own thread only.
 */
public interface WaitClaim {

    /** Nothing to claim: every wait is allowed as far as the claim goes. */
    WaitClaim NONE = new WaitClaim() {
        @Override
        public boolean pending() {
            return false;
        }

        @Override
        public boolean claim() {
            return true;
        }

        @Override
        public void giveUp() {
        }
    };

    /** @return whether {@link #claim()} still has something to do (nothing claimed yet) */
    boolean pending();

    /**
     * Claims the right to wait; a no-op once claimed.
     *
     * @return false when the claim is refused (the queue is full): the request is refused, nothing is held
     */
    boolean claim();

    /** Gives the claim up (the request started or left); harmless when none is held. */
    void giveUp();
}
