package dev.sluice.runtime.resilience;

import dev.sluice.api.upstream.UpstreamFailure;

/**
 * The decision step after a failed attempt: failure → {@link Verdict} → what the attempt loop
 * does next. Today the verdict's {@code fallback} flag decides alone; this is where connection
 * cooldowns, breakers and model lockouts (SPEC §6–§11) will act on the verdict.
 */
public final class FailurePolicy {

    /** What the attempt loop does after a failure. */
    public enum Decision {
        /** Try the next candidate connection. */
        TRY_NEXT,
        /** Stop and answer the client with this failure. */
        GIVE_UP
    }

    private final FailureClassifier classifier;

    /**
     * Creates the policy.
     *
     * @param classifier the failure classifier
     */
    public FailurePolicy(FailureClassifier classifier) {
        this.classifier = classifier;
    }

    /**
     * Classifies a failure.
     *
     * @param failure the failure
     * @return its verdict
     */
    public Verdict classify(String provider, dev.sluice.api.ProviderClass connectionClass, UpstreamFailure failure) {
        return classifier.classify(provider, connectionClass, failure);
    }

    /**
     * Decides what follows a failed attempt on a connection.
     *
     * @param connectionId the connection that failed
     * @param verdict the failure's verdict
     * @return the decision
     */
    public Decision afterFailure(String connectionId, Verdict verdict) {
        return verdict.fallback() ? Decision.TRY_NEXT : Decision.GIVE_UP;
    }
}
