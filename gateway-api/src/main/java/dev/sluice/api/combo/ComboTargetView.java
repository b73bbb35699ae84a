package dev.sluice.api.combo;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ModelFacts;

/**
 * One eligible target of a combo as a {@link ComboStrategy} sees it for one request (SPEC CO-1,
 * CO-2): its configuration and what the gateway has observed of it.
 *
 * @param index the target's position in the combo's list (0-based; stable across requests)
 * @param model the target's model ({@code provider/model})
 * @param connectionId the connection the target is pinned to, or null
 * @param weight the configured weight (≥ 0; 1 when unset)
 * @param priority the configured priority (lower first; the list position + 1 when unset)
 * @param costPer1kTokens the configured cost, or null when unknown
 * @param inFlight requests this gateway is sending to the target right now
 * @param uses requests this gateway has sent to the target (since start)
 * @param lastUsedAt when the target was last tried, epoch ms, or null
 * @param lastSuccessAt when the target last answered successfully, epoch ms, or null
 * @param quotaRemaining the share of its upstream quota left (0–1) as the connection that would
 *     serve it last announced (rate-limit headers), or null when unknown
 * @param quotaResetAt when that quota resets, epoch ms, as last announced, or null when unknown
 * @param quotaWindowResetAt when the longest quota window the connection announces ends (a
 *     subscription's weekly window before its 5-hour one), epoch ms, or null when it announces none
 * @param facts the model catalog's figures for the target's model (context window, output limit,
 *     prices, tier; issue 34), {@link ModelFacts#UNKNOWN} when none are known. A target's
 *     configured {@code costPer1kTokens} wins over the catalog's prices: {@link #costPer1kTokens()}
 *     is the configured one, else one derived from the catalog
 * @param latencyP50Ms the median time to the answer's head (first byte of a stream) of the target's
 *     recent successful answers in this combo, ms, or null when there are none recent enough
 * @param failureRate the decayed share of the target's recent attempts in this combo that failed
 *     (0–1), or null before its first attempt
 * @param heldConnections how many connections that could serve the target are held back right now
 *     (breaker open, cooldowns, lockouts) ahead of the one that would serve it
 */
@dev.sluice.api.Experimental("grows with the router; read it, do not construct it")
public record ComboTargetView(int index, String model, String connectionId, int weight, int priority, Double costPer1kTokens,
        long inFlight, long uses, Long lastUsedAt, Long lastSuccessAt, Double quotaRemaining, Long quotaResetAt,
        Long quotaWindowResetAt, ModelFacts facts, Long latencyP50Ms, Double failureRate, int heldConnections) {

    /** Validates. */
    public ComboTargetView {
        requireNonNull(model, "model is null");
        if (weight < 0) {
            throw new IllegalArgumentException("weight is negative");
        }
        if (quotaRemaining != null && (quotaRemaining < 0 || quotaRemaining > 1)) {
            throw new IllegalArgumentException("quotaRemaining must be within 0..1");
        }
        if (failureRate != null && (failureRate < 0 || failureRate > 1)) {
            throw new IllegalArgumentException("failureRate must be within 0..1");
        }
        facts = facts == null ? ModelFacts.UNKNOWN : facts;
    }

    /**
     * A view without catalog figures or observed latency (the form before the model catalog).
     *
     * @param index the position in the combo's list
     * @param model the model
     * @param connectionId the pinned connection, or null
     * @param weight the weight
     * @param priority the priority
     * @param costPer1kTokens the cost, or null
     * @param inFlight requests in flight
     * @param uses requests sent
     * @param lastUsedAt last use, or null
     * @param lastSuccessAt last success, or null
     * @param quotaRemaining the share of quota left, or null
     * @param quotaResetAt when that quota resets, or null
     * @param quotaWindowResetAt when the longest quota window ends, or null
     */
    public ComboTargetView(int index, String model, String connectionId, int weight, int priority, Double costPer1kTokens,
            long inFlight, long uses, Long lastUsedAt, Long lastSuccessAt, Double quotaRemaining, Long quotaResetAt,
            Long quotaWindowResetAt) {
        this(index, model, connectionId, weight, priority, costPer1kTokens, inFlight, uses, lastUsedAt, lastSuccessAt, quotaRemaining,
                quotaResetAt, quotaWindowResetAt, ModelFacts.UNKNOWN, null, null, 0);
    }

    /**
     * This view with the model catalog's figures (tests, plugins' test kits).
     *
     * @param value the figures
     * @return the copy
     */
    public ComboTargetView withFacts(ModelFacts value) {
        return new ComboTargetView(index, model, connectionId, weight, priority, costPer1kTokens, inFlight, uses, lastUsedAt,
                lastSuccessAt, quotaRemaining, quotaResetAt, quotaWindowResetAt, value, latencyP50Ms, failureRate, heldConnections);
    }

    /**
     * This view with observed health and latency (tests, plugins' test kits).
     *
     * @param p50Ms the median latency, or null
     * @param failures the decayed failure share, or null
     * @param held connections held back
     * @return the copy
     */
    public ComboTargetView withObservations(Long p50Ms, Double failures, int held) {
        return new ComboTargetView(index, model, connectionId, weight, priority, costPer1kTokens, inFlight, uses, lastUsedAt,
                lastSuccessAt, quotaRemaining, quotaResetAt, quotaWindowResetAt, facts, p50Ms, failures, held);
    }

    /**
     * A view without a quota window (the form of the first release).
     *
     * @param index the position in the combo's list
     * @param model the model
     * @param connectionId the pinned connection, or null
     * @param weight the weight
     * @param priority the priority
     * @param costPer1kTokens the cost, or null
     * @param inFlight requests in flight
     * @param uses requests sent
     * @param lastUsedAt last use, or null
     * @param lastSuccessAt last success, or null
     * @param quotaRemaining the share of quota left, or null
     * @param quotaResetAt when that quota resets, or null
     */
    public ComboTargetView(int index, String model, String connectionId, int weight, int priority, Double costPer1kTokens,
            long inFlight, long uses, Long lastUsedAt, Long lastSuccessAt, Double quotaRemaining, Long quotaResetAt) {
        this(index, model, connectionId, weight, priority, costPer1kTokens, inFlight, uses, lastUsedAt, lastSuccessAt, quotaRemaining,
                quotaResetAt, null);
    }

    /**
     * A view without quota observations.
     *
     * @param index the position in the combo's list
     * @param model the model
     * @param connectionId the pinned connection, or null
     * @param weight the weight
     * @param priority the priority
     * @param costPer1kTokens the cost, or null
     * @param inFlight requests in flight
     * @param uses requests sent
     * @param lastUsedAt last use, or null
     * @param lastSuccessAt last success, or null
     */
    public ComboTargetView(int index, String model, String connectionId, int weight, int priority, Double costPer1kTokens,
            long inFlight, long uses, Long lastUsedAt, Long lastSuccessAt) {
        this(index, model, connectionId, weight, priority, costPer1kTokens, inFlight, uses, lastUsedAt, lastSuccessAt, null, null, null);
    }
}
