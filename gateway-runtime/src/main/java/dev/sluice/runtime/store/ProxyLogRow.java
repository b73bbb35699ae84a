package dev.sluice.runtime.store;

/**
 * One upstream attempt (SPEC DM-3 {@code proxy_logs}).
 *
 * @param timestamp epoch ms when the attempt started
 * @param requestId the gateway request id
 * @param provider provider id
 * @param connectionId connection id
 * @param model upstream model id
 * @param status upstream HTTP status, or 0 for a transport failure
 * @param latencyMs time to the upstream's response headers (or failure)
 * @param errorType failure reason, or null on success
 * @param egressIp egress IP if known, else null
 * @param effect the cooldown, lockout or terminal state this attempt put on its connection (issue 33), or null
 */
public record ProxyLogRow(long timestamp, String requestId, String provider, String connectionId, String model,
        int status, long latencyMs, String errorType, String egressIp, Effect effect) {

    /**
     * An attempt that changed nothing on its connection.
     *
     * @param timestamp epoch ms when the attempt started
     * @param requestId the gateway request id
     * @param provider provider id
     * @param connectionId connection id
     * @param model upstream model id
     * @param status upstream HTTP status, or 0 for a transport failure
     * @param latencyMs time to the upstream's response headers (or failure)
     * @param errorType failure reason, or null on success
     * @param egressIp egress IP if known, else null
     */
    public ProxyLogRow(long timestamp, String requestId, String provider, String connectionId, String model,
            int status, long latencyMs, String errorType, String egressIp) {
        this(timestamp, requestId, provider, connectionId, model, status, latencyMs, errorType, egressIp, null);
    }

    /**
     * The same row with what the attempt caused.
     *
     * @param e the effect, or null
     * @return the row
     */
    public ProxyLogRow withEffect(Effect e) {
        return new ProxyLogRow(timestamp, requestId, provider, connectionId, model, status, latencyMs, errorType, egressIp, e);
    }

    /**
     * What a failed attempt did to its connection, as the failure path left it right after
     * settling the attempt: the operator's answer to "why is this connection skipped now".
     *
     * @param kind {@link #COOLDOWN} (the connection cools until {@code untilMs}), {@link #MODEL_LOCKOUT}
     *     (the model, or its quota family, is locked out on that connection until {@code untilMs}) or
     *     {@link #TERMINAL} (the connection is {@code banned}, {@code expired} or {@code credits_exhausted}
     *     until an operator acts; no {@code untilMs})
     * @param untilMs epoch ms when it ends, or null for a terminal state
     * @param reason the failure reason it was set for ({@code rate_limit_exceeded}, …) or the terminal status
     */
    public record Effect(String kind, Long untilMs, String reason) {
        /** A connection cooldown. */
        public static final String COOLDOWN = "cooldown";
        /** A model lockout. */
        public static final String MODEL_LOCKOUT = "model_lockout";
        /** A terminal state. */
        public static final String TERMINAL = "terminal";

        /** Validates. */
        public Effect {
            java.util.Objects.requireNonNull(kind, "kind is null");
        }
    }
}
