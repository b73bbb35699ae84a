package dev.sluice.runtime.telemetry;

/**
 * One finished inference request as the recent-requests ring keeps it: what the client asked and
 * was answered, never a key or a body.
 *
 * @param requestId the gateway request id
 * @param startedAtMs epoch ms when it arrived
 * @param keyId the caller's key id ({@code admin} for the admin key), or null when unauthenticated
 * @param api the API ({@code chat_completions}, {@code messages}, {@code responses}, {@code embeddings})
 * @param requestedModel the model the client named, or null when routing never saw one
 * @param provider the provider of the route taken, or null
 * @param connectionId the connection that answered (or failed last), or null
 * @param model the upstream model of the route taken, or null
 * @param status the HTTP status answered to the client
 * @param latencyMs arrival to finish
 * @param errorCode the error code answered, or null
 * @param failure why routing failed (a classifier reason or refusal), or null
 * @param attempts upstream attempts made
 */
public record RecentRequest(String requestId, long startedAtMs, String keyId, String api, String requestedModel, String provider,
        String connectionId, String model, int status, long latencyMs, String errorCode, String failure, int attempts) {

    static RecentRequest of(RequestRecord r, int status, long latencyMs) {
        return new RecentRequest(r.requestId(), r.startedAtMs(), r.keyId(), r.api(), r.requestedModel(), r.provider(), r.connectionId(),
                r.model(), status, latencyMs, r.errorCode(), r.failure(), r.attempts());
    }
}
