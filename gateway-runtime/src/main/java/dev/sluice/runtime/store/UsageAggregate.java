package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

/**
 * The usage (SPEC DM-3) of every client request that arrived in one minute with the same key, API,
 * provider, connection and upstream model: the unit the {@code usage} table stores and
 * {@link UsageStore#add} adds up. A token count an upstream did not report counts as zero, as it
 * did in the per-request rows' sums.
 *
 * @param minute epoch ms of the start of the minute the requests arrived in
 * @param keyId the gateway key id (never the key), or null before authentication
 * @param api the client API ({@code chat_completions}, {@code messages}, {@code responses}, {@code embeddings})
 * @param provider the provider that served or was tried last, or null
 * @param connectionId the connection that served or was tried last, or null
 * @param model the upstream model, or null
 * @param requests client requests
 * @param errors requests answered with a status of 400 or more
 * @param promptTokens summed prompt (input) tokens
 * @param completionTokens summed completion (output) tokens
 * @param cachedTokens summed prompt tokens read from the upstream's cache
 * @param reasoningTokens summed completion tokens spent on reasoning
 * @param latencyMs summed latency, arrival to last byte
 * @param attempts summed upstream attempts
 */
public record UsageAggregate(long minute, String keyId, String api, String provider, String connectionId, String model, long requests,
        long errors, long promptTokens, long completionTokens, long cachedTokens, long reasoningTokens, long latencyMs, long attempts) {

    /** One minute, in ms. */
    public static final long MINUTE_MS = 60_000;

    /** Validates. */
    public UsageAggregate {
        requireNonNull(api, "api is null");
        if (minute % MINUTE_MS != 0) {
            throw new IllegalArgumentException("minute must be the start of a minute, got " + minute);
        }
    }

    /**
     * The start of the minute a time falls in.
     *
     * @param epochMs epoch ms
     * @return epoch ms of the minute's start
     */
    public static long minuteOf(long epochMs) {
        return Math.floorDiv(epochMs, MINUTE_MS) * MINUTE_MS;
    }

    /**
     * Both aggregates of one bucket added up.
     *
     * @param o another aggregate of the same minute, key, API, provider, connection and model
     * @return the sum
     */
    public UsageAggregate plus(UsageAggregate o) {
        return new UsageAggregate(minute, keyId, api, provider, connectionId, model, requests + o.requests, errors + o.errors,
                promptTokens + o.promptTokens, completionTokens + o.completionTokens, cachedTokens + o.cachedTokens,
                reasoningTokens + o.reasoningTokens, latencyMs + o.latencyMs, attempts + o.attempts);
    }
}
