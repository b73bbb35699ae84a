package dev.sluice.runtime.resilience.breaker.shared;

import dev.sluice.runtime.resilience.BreakerKey;

/**
 * The part of a circuit breaker several instances share (SPEC NF-6, §6): that it is open and
 * until when, and who holds its one half-open probe. Failures are still counted by each
 * instance's own breaker; the instance whose breaker opens announces it here, and every instance
 * then refuses the host until the open period ends, after which exactly one attempt over all
 * instances probes it ({@link SharedCircuitBreakers}, the decorator that tells and asks it). The
 * default, {@link #NONE}, shares nothing.
 *
 * <p>An implementation bounds every call; when its store cannot be reached, {@link #admit}
 * answers {@link #ADMITTED} and the local breaker alone decides.
 */
public interface BreakerBoard {

    /** {@link #admit}: nothing shared holds the attempt back. */
    long ADMITTED = 0;
    /** {@link #admit}: admitted as the one half-open probe over all instances. */
    long PROBE = -1;

    /** Shares nothing. */
    BreakerBoard NONE = new BreakerBoard() {
        @Override
        public void opened(BreakerKey key, long periodMs, long probeLeaseMs) {
        }

        @Override
        public void closed(BreakerKey key) {
        }

        @Override
        public long admit(BreakerKey key, boolean claim, long probeLeaseMs) {
            return ADMITTED;
        }

        @Override
        public void released(BreakerKey key) {
        }
    };

    /**
     * A breaker opened here (or its probe failed): every instance refuses the host for {@code periodMs}.
     *
     * @param key the breaker
     * @param periodMs the open period, ms
     * @param probeLeaseMs how long a claimed probe holds its claim
     */
    void opened(BreakerKey key, long periodMs, long probeLeaseMs);

    /**
     * A probe succeeded: the breaker is closed everywhere.
     *
     * @param key the breaker
     */
    void closed(BreakerKey key);

    /**
     * Whether an attempt may go upstream as far as the shared state goes.
     *
     * @param key the breaker
     * @param claim whether to claim the half-open probe when it is free
     * @param probeLeaseMs how long a claimed probe holds its claim
     * @return {@link #ADMITTED}; {@link #PROBE} (claimed, or free when not claiming); or the ms until it may be asked again (&gt; 0)
     */
    long admit(BreakerKey key, boolean claim, long probeLeaseMs);

    /**
     * The probe claimed here ended without evidence: another attempt (on any instance) may probe.
     *
     * @param key the breaker
     */
    void released(BreakerKey key);

    /**
     * An operator reset breakers ({@code POST /api/resilience/reset}): their shared open state and
     * probe claims are forgotten, so no instance refuses their hosts any longer.
     *
     * @param provider the provider whose breakers were reset, or null for every breaker
     */
    default void reset(String provider) {
    }

    /** @return true when breakers are shared with other instances */
    default boolean shared() {
        return this != NONE;
    }
}
