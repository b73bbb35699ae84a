package dev.sluice.runtime.settings;

import java.util.Map;

/**
 * What each resilience setting means (issue 33), in the words of docs/resilience.md and
 * docs/combos.md, keyed by path with {@code *} standing for a provider class ({@code oauth},
 * {@code apikey}, {@code local}). {@code GET /api/resilience/schema} carries it beside the field's
 * type, bounds and default, so the console and curl users read the same text; a test holds that
 * every leaf of the schema has one and that no entry names a field that does not exist.
 */
final class ResilienceFieldDescriptions {

    private static final Map<String, String> TEXT = Map.ofEntries(
            // §2 provider circuit breaker, per provider class
            Map.entry("circuitBreaker.*.degradationThreshold", "Failures of the provider's host (408, 500, 502, 503, 504, transport errors; "
                    + "one per connection within 5 s) at which its breaker turns DEGRADED: traffic still flows, failures are watched. "
                    + "Must be below failureThreshold."),
            Map.entry("circuitBreaker.*.failureThreshold", "Failures at which the breaker OPENs: the host's connections are skipped until the "
                    + "open period ends, then one probe request decides (HALF_OPEN)."),
            Map.entry("circuitBreaker.*.resetTimeoutMs", "How long an OPEN breaker stays open before its half-open probe, in ms (the first "
                    + "open periods; repeated openings back off from it)."),
            Map.entry("circuitBreaker.*.maxBackoffMultiplier", "Cap of the open period's growth when the breaker opens again and again: "
                    + "at most resetTimeoutMs × this."),
            Map.entry("circuitBreaker.*.backoffEscalationCount", "How many openings keep the plain resetTimeoutMs before each further "
                    + "opening doubles the open period."),
            Map.entry("circuitBreaker.*.cooldownByKind", "Open period by the last failure's reason, in ms, e.g. {\"server_error\": 120000}; "
                    + "a reason not listed uses resetTimeoutMs. Empty by default."),
            // §5 provider cooldown window gate
            Map.entry("providerCooldown.enabled", "Master switch of the provider cooldown window gate: a provider that keeps failing "
                    + "pauses as a whole. Off by default."),
            Map.entry("providerCooldown.minRetryCooldownMs", "First pause of a failing connection inside the window gate, in ms; it doubles "
                    + "with each further failure up to maxRetryCooldownMs, and a success removes it."),
            Map.entry("providerCooldown.maxRetryCooldownMs", "Longest pause of a failing connection inside the window gate, in ms."),
            Map.entry("providerCooldown.*.failureThreshold", "Failures of the provider within failureWindowMs that pause the whole provider."),
            Map.entry("providerCooldown.*.failureWindowMs", "The window in which failureThreshold failures are counted, in ms; one success "
                    + "clears it."),
            Map.entry("providerCooldown.*.cooldownMs", "How long the provider pauses once the threshold is reached, in ms."),
            // §3 connection cooldown
            Map.entry("connectionCooldown.*.baseCooldownMs", "First cooldown of a failing connection (key or account), in ms: "
                    + "base × 2^level, the level growing with each failure until a success. An API key's 429 uses the upstream's hint "
                    + "instead."),
            Map.entry("connectionCooldown.*.maxBackoffSteps", "How many doublings the connection cooldown may take."),
            Map.entry("connectionCooldown.*.maxCooldownMs", "Longest connection cooldown from the formula, in ms (at least baseCooldownMs); "
                    + "a declared duration (a weekly cap) or an authoritative hint may be longer."),
            Map.entry("streamStallCooldown.enabled", "Whether a stream that stalls (no model output for streamRecovery.idleTimeoutMs) also "
                    + "cools its connection; off, the stall is only recorded as the connection's last error (it usually belongs to the "
                    + "request)."),
            Map.entry("serviceUnavailableCooldown.enabled", "Whether an upstream 503 cools the connection like other failures; off, a 503 "
                    + "counts only for the provider's breaker."),
            // §4 model lockout
            Map.entry("modelLockout.enabled", "Master switch of model lockouts: when on, a failure of one model (404, its quota family's "
                    + "429/403/402, 5xx) locks only that model on that connection instead of cooling the whole connection. Off by "
                    + "default."),
            Map.entry("modelLockout.errorCodes", "Upstream statuses that lock a model out."),
            Map.entry("modelLockout.baseCooldownMs", "First lockout, in ms; a longer hint from the upstream is used instead."),
            Map.entry("modelLockout.maxCooldownMs", "Longest lockout, in ms (at least baseCooldownMs), unless a header or Google RetryInfo "
                    + "announced a longer one."),
            Map.entry("modelLockout.maxBackoffSteps", "How many doublings a repeated lockout may take."),
            Map.entry("modelLockout.useExponentialBackoff", "Whether a repeated failure (within one baseCooldownMs after the previous lock "
                    + "ended) doubles the lockout; off, every lockout lasts baseCooldownMs."),
            // combos.md: waiting out short cooldowns
            Map.entry("comboCooldownWait.enabled", "Whether a combo request whose targets are all in a short rate-limit cooldown waits "
                    + "for the earliest to end instead of answering 429. Never for a quota, an auth problem or a missing model."),
            Map.entry("comboCooldownWait.maxWaitMs", "Longest single wait of a combo request, in ms; a longer cooldown is answered with "
                    + "429 at once."),
            Map.entry("comboCooldownWait.maxAttempts", "How many times one combo request may wait."),
            Map.entry("comboCooldownWait.budgetMs", "Total waiting of one combo request, in ms (at least maxWaitMs)."),
            // §7 request queue
            Map.entry("requestQueue.maxWaitMs", "How long a request may wait for a capped or paced connection before it is refused with "
                    + "503 RATE_LIMIT_QUEUE_TIMEOUT, in ms (per connection: rateLimitOverrides.maxWaitMs)."),
            Map.entry("requestQueue.executionMaxWaitMs", "How long one started attempt may run before it is stopped and the next connection "
                    + "tried (504 RATE_LIMIT_EXECUTION_TIMEOUT when none is left), in ms; never counts against the upstream."),
            Map.entry("requestQueue.maxQueueDepth", "How many requests may wait for one protected connection; more are refused with 429 "
                    + "RATE_LIMIT_QUEUE_FULL. 0 = unlimited."),
            Map.entry("requestQueue.autoEnableApiKeyProviders", "Whether every API-key connection is protected by the request queue "
                    + "(paced by the rate limits its upstream announces) without setting rateLimitProtection on it. The environment "
                    + "variable RATE_LIMIT_AUTO_ENABLE beats this."),
            Map.entry("quotaShareConcurrencyLimit.enabled", "Whether quota-share combo requests take turns on their accounts' maxConcurrent; "
                    + "off, they ignore it (model caps still apply)."),
            // §8 stream watchdogs
            Map.entry("streamRecovery.readinessTimeoutMs", "How long a streamed attempt may go without a useful event (content, tool call, "
                    + "reasoning, finish), counted from its start, before the next connection is tried (504 STREAM_READINESS_TIMEOUT "
                    + "when none serves), in ms."),
            Map.entry("streamRecovery.idleTimeoutMs", "How long a committed stream may go without model output before it is ended with "
                    + "STREAM_STALL_TIMEOUT in band, in ms; reasoning deltas restart it, heartbeats do not. 0 = off."),
            Map.entry("streamRecovery.keepAliveIntervalMs", "How often a silent committed stream gets a keep-alive comment (chat) or ping "
                    + "(Anthropic), in ms, so proxies with idle timeouts keep it open. 0 = off."),
            Map.entry("streamRecovery.attemptDeadlineMs", "Hard bound of one streamed attempt from its start, in ms (STREAM_ATTEMPT_DEADLINE "
                    + "in band)."),
            Map.entry("streamRecovery.earlyEofRetries", "How many times a stream that ended before any useful event is re-attempted on the "
                    + "same account before the next one (502 STREAM_EARLY_EOF when none serves)."),
            Map.entry("streamRecovery.throughputWatchdog.enabled", "Whether a stream whose text arrives slower than minBytesPerSecond (after "
                    + "warm-up and one full window) is ended with STREAM_THROUGHPUT_TOO_LOW. Off by default."),
            Map.entry("streamRecovery.throughputWatchdog.windowMs", "The window over which the stream's throughput is measured, in ms."),
            Map.entry("streamRecovery.throughputWatchdog.warmupMs", "Time after the stream's start during which no throughput verdict is "
                    + "given, in ms."),
            Map.entry("streamRecovery.throughputWatchdog.minBytesPerSecond", "Slowest acceptable text rate, in UTF-8 bytes per second "
                    + "(8 ≈ 2 tokens/s)."),
            Map.entry("streamRecovery.throughputWatchdog.minMeasurableBytes", "Outputs shorter than this many bytes are never judged."));

    private ResilienceFieldDescriptions() {
    }

    /**
     * The description of a leaf.
     *
     * @param path its dotted path, e.g. {@code circuitBreaker.apikey.failureThreshold}
     * @return the text, or null when there is none
     */
    static String of(String path) {
        String exact = TEXT.get(path);
        if (exact != null) {
            return exact;
        }
        String[] parts = path.split("\\.");
        for (int i = 1; i < parts.length - 1; i++) {
            String[] generic = parts.clone();
            generic[i] = "*";
            String text = TEXT.get(String.join(".", generic));
            if (text != null) {
                return text;
            }
        }
        return null;
    }

    /** @return every entry's key, for the test that no entry is stale */
    static java.util.Set<String> keys() {
        return TEXT.keySet();
    }
}
