package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

/**
 * One client request's usage (SPEC DM-3 {@code usage}), written once when the request is finalized.
 * Token counts are null where the upstream did not report them (an error, an upstream that sends no
 * usage), so "unknown" never reads as zero.
 *
 * @param timestamp epoch ms when the request arrived
 * @param requestId the gateway request id
 * @param keyId the gateway key id (never the key), or null before authentication
 * @param api the client API ({@code chat_completions}, {@code messages}, {@code responses}, {@code embeddings})
 * @param provider the provider that served or was tried last, or null
 * @param connectionId the connection that served or was tried last, or null
 * @param model the upstream model, or null
 * @param promptTokens prompt (input) tokens, or null
 * @param completionTokens completion (output) tokens, or null
 * @param cachedTokens prompt tokens read from the upstream's cache, or null
 * @param reasoningTokens completion tokens spent on reasoning, or null
 * @param status the HTTP status answered
 * @param latencyMs from arrival to the last byte written
 * @param attempts upstream attempts made
 */
public record UsageRow(long timestamp, String requestId, String keyId, String api, String provider, String connectionId, String model,
        Long promptTokens, Long completionTokens, Long cachedTokens, Long reasoningTokens, int status, long latencyMs, int attempts) {

    /** Validates. */
    public UsageRow {
        requireNonNull(requestId, "requestId is null");
        requireNonNull(api, "api is null");
    }
}
