package dev.sluice.runtime.resilience;

import dev.sluice.api.ProviderClass;

/**
 * One resilience mechanism as the engine sees it (issue 35), in the manner of Resilience4j's
 * decorators: what it holds a candidate back for, what a failure and a success do to it, and
 * what another instance's change does to it. Every method has a default that does nothing, so a
 * mechanism implements only what it takes part in; the engine asks them in the order it was given
 * them and knows none of them by name.
 *
 * <p>Calls arrive on request threads, concurrently: a mechanism guards its own state. The hold
 * checks run once per walked connection (NF-3): they claim nothing and allocate nothing.
 *
 * <p>A mechanism in shared mode (NF-6) is its local mechanism wrapped by a decorator beside its
 * shared board; the local one knows nothing of the other instances.
 */
public interface Mechanism {

    /**
     * Whether this mechanism holds a whole provider back from a request (checked once per request).
     *
     * @param provider the provider id
     * @param providerClass its class
     * @return the time left of the hold, ms; 0 when it does not hold
     */
    default long providerHeldMs(String provider, ProviderClass providerClass) {
        return 0;
    }

    /**
     * Whether this mechanism holds the connection of {@code check} back from the request now; when
     * it does, it writes the reason and the time left to {@code check} ({@link HoldCheck#hold}).
     *
     * @param check the candidate and the request's facts, and the answer
     * @return true when held back
     */
    default boolean holds(HoldCheck check) {
        return false;
    }

    /**
     * The first pass over a failure, in the engine's order: a mechanism that decides how far a
     * failure reaches does it here, by widening it ({@link FailedCandidate#widenToConnection}) or
     * by taking it for itself ({@link FailedCandidate#modelLocked}), so that the others see it in
     * {@link #onFailure}.
     *
     * @param failed the failed attempt
     */
    default void take(FailedCandidate failed) {
    }

    /**
     * What a failed attempt does to this mechanism (the second pass, in the engine's order, after
     * every {@link #take}).
     *
     * @param failed the failed attempt, with what the earlier mechanisms did about it
     */
    default void onFailure(FailedCandidate failed) {
    }

    /**
     * What a served attempt does to this mechanism.
     *
     * @param served the candidate that served
     */
    default void onSuccess(Candidate served) {
    }

    /**
     * A committed stream of the candidate stalled (ST-1, CC-5): the gateway's own watchdog, never
     * evidence about the provider.
     *
     * @param stalled the candidate whose stream stalled
     * @param message what happened
     */
    default void onStreamStall(Candidate stalled, String message) {
    }

    /**
     * The route an attempt left by (§16.3, EB-2).
     *
     * @param attempted the candidate
     * @param egressIp the attempt's egress IP, or null when unknown
     * @param direct whether the attempt left through the machine's default route (no local
     *     address, no proxy)
     */
    default void onEgress(Candidate attempted, String egressIp, boolean direct) {
    }

    /**
     * Applies what another instance changed and announced (NF-6) to this instance's state, as that
     * instance applied it to its own. Publishes nothing (no echo) and leaves the shared keys alone:
     * the instance that made the change wrote them.
     *
     * @param event what another instance changed
     * @param now this instance's time, epoch ms (times in events are the milliseconds left)
     */
    default void onClusterEvent(ClusterEvent event, long now) {
    }
}
