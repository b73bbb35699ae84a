package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import java.util.List;
import java.util.Map;

/**
 * The typed resilience settings tree (SPEC §18 SE-4) with the spec's defaults. Immutable: a change
 * replaces the whole tree, and every mechanism reads the current tree on each decision, so changes
 * apply without restart.
 *
 * @param circuitBreaker provider circuit breaker (§6)
 * @param providerCooldown provider cooldown window gate (§7)
 * @param connectionCooldown connection cooldown (§8)
 * @param streamStallCooldown whether a stream stall cools the connection (CC-5)
 * @param modelLockout model lockout (§11, ML-2)
 * @param comboCooldownWait the combos' cooldown-aware wait (§13, CO-3)
 * @param requestQueue the local request queue per connection (§14)
 * @param quotaShareConcurrencyLimit quota-share serialization (§12, QC-3)
 * @param streamRecovery the stream watchdogs' timers (§15, ST-0..ST-3)
 * @param serviceUnavailableCooldown whether an upstream 503 cools the connection (issue 32)
 */
public record ResilienceSettings(
        CircuitBreakerSettings circuitBreaker,
        ProviderCooldownSettings providerCooldown,
        ConnectionCooldownSettings connectionCooldown,
        StreamStallCooldown streamStallCooldown,
        ModelLockoutSettings modelLockout,
        ComboCooldownWait comboCooldownWait,
        RequestQueue requestQueue,
        QuotaShareConcurrencyLimit quotaShareConcurrencyLimit,
        StreamRecovery streamRecovery,
        ServiceUnavailableCooldown serviceUnavailableCooldown) {

    /** The built-in defaults of the spec. */
    public static final ResilienceSettings DEFAULTS = new ResilienceSettings(
            new CircuitBreakerSettings(
                    new BreakerProfile(5, 8, 60_000, 8, 2, Map.of()),
                    new BreakerProfile(7, 12, 30_000, 4, 3, Map.of()),
                    new BreakerProfile(1, 2, 15_000, 16, 3, Map.of())),
            new ProviderCooldownSettings(false, 5_000, 300_000,
                    new WindowProfile(10, 900_000, 300_000),
                    new WindowProfile(15, 1_800_000, 600_000),
                    new WindowProfile(2, 300_000, 60_000)),
            new ConnectionCooldownSettings(
                    new CooldownProfile(5_000, 8, 1_800_000),
                    new CooldownProfile(3_000, 5, 1_800_000)),
            new StreamStallCooldown(false),
            new ModelLockoutSettings(false, List.of(403, 404, 429, 502, 503, 504), 120_000, 1_800_000, 10, true),
            ComboCooldownWait.DEFAULT,
            RequestQueue.DEFAULT,
            QuotaShareConcurrencyLimit.DEFAULT,
            StreamRecovery.DEFAULT,
            ServiceUnavailableCooldown.DEFAULT);

    /** Validates. */
    public ResilienceSettings {
        requireNonNull(circuitBreaker, "circuitBreaker");
        requireNonNull(providerCooldown, "providerCooldown");
        requireNonNull(connectionCooldown, "connectionCooldown");
        requireNonNull(streamStallCooldown, "streamStallCooldown");
        requireNonNull(modelLockout, "modelLockout");
        requireNonNull(comboCooldownWait, "comboCooldownWait");
        requireNonNull(requestQueue, "requestQueue");
        requireNonNull(quotaShareConcurrencyLimit, "quotaShareConcurrencyLimit");
        requireNonNull(streamRecovery, "streamRecovery");
        requireNonNull(serviceUnavailableCooldown, "serviceUnavailableCooldown");
    }

    /**
     * The settings of the sections that have existed since the first release, every later section
     * ({@link ComboCooldownWait}, {@link RequestQueue}, {@link QuotaShareConcurrencyLimit},
     * {@link StreamRecovery}, {@link ServiceUnavailableCooldown}) at its default.
     *
     * @param circuitBreaker provider circuit breaker
     * @param providerCooldown provider cooldown window gate
     * @param connectionCooldown connection cooldown
     * @param streamStallCooldown stream stall cooldown
     * @param modelLockout model lockout
     * @return the settings
     */
    public static ResilienceSettings of(CircuitBreakerSettings circuitBreaker, ProviderCooldownSettings providerCooldown,
            ConnectionCooldownSettings connectionCooldown, StreamStallCooldown streamStallCooldown, ModelLockoutSettings modelLockout) {
        return new ResilienceSettings(circuitBreaker, providerCooldown, connectionCooldown, streamStallCooldown, modelLockout,
                ComboCooldownWait.DEFAULT, RequestQueue.DEFAULT, QuotaShareConcurrencyLimit.DEFAULT, StreamRecovery.DEFAULT,
                ServiceUnavailableCooldown.DEFAULT);
    }

    /**
     * The combos' cooldown-aware wait (CO-3, CO-4): a combo request that would end because every
     * target is in a short transient cooldown waits for the earliest to end (+ 50 ms) and
     * dispatches again, instead of answering 429.
     *
     * @param enabled whether combos wait (default true)
     * @param maxWaitMs the longest single wait (default 90 000; 0–300 000)
     * @param maxAttempts waits per request (default 5; 0–10)
     * @param budgetMs total waiting per request (default 300 000; ≥ maxWaitMs, ≤ 300 000)
     */
    public record ComboCooldownWait(boolean enabled, long maxWaitMs, int maxAttempts, long budgetMs) {
        /** The spec's defaults. */
        public static final ComboCooldownWait DEFAULT = new ComboCooldownWait(true, 90_000, 5, 300_000);
    }

    /**
     * The local request queue in front of each connection (§14).
     *
     * @param maxWaitMs the longest a request waits in a connection's queue before it starts (RQ-1;
     *        default 30 000; 1 ms–24 h); over it: {@code RATE_LIMIT_QUEUE_TIMEOUT}, nothing sent upstream
     * @param executionMaxWaitMs the longest an attempt may run once started (RQ-2; default 600 000;
     *        1 ms–24 h), raised to the attempt's own start timeout when that is longer
     * @param maxQueueDepth waiting requests per connection beyond which a new one is refused at once
     *        with {@code RATE_LIMIT_QUEUE_FULL} (RQ-5; default 0 = unlimited; 0–100 000)
     * @param autoEnableApiKeyProviders whether every active API-key connection is protected (RQ-7;
     *        default true; env {@code RATE_LIMIT_AUTO_ENABLE} beats it)
     */
    public record RequestQueue(long maxWaitMs, long executionMaxWaitMs, int maxQueueDepth, boolean autoEnableApiKeyProviders) {
        /** The spec's defaults. */
        public static final RequestQueue DEFAULT = new RequestQueue(30_000, 600_000, 0, true);
        /** RQ-3: both bounds clamp to 1 ms – 24 h. */
        public static final long MAX_BOUND_MS = 86_400_000L;
        /** RQ-5: {@code maxQueueDepth} clamps to 0 – 100 000. */
        public static final int MAX_QUEUE_DEPTH = 100_000;
    }

    /**
     * Quota-share serialization (QC-3): requests a quota-share combo sends to a connection with a
     * positive {@code maxConcurrent} take turns on that connection (fail-open).
     *
     * @param enabled default true
     */
    public record QuotaShareConcurrencyLimit(boolean enabled) {
        /** The spec's default. */
        public static final QuotaShareConcurrencyLimit DEFAULT = new QuotaShareConcurrencyLimit(true);
    }

    /**
     * The stream watchdogs' timers (§15 ST-0, ST-1): how long an attempt may take to send its
     * first useful event, how long a started stream may go without model output, how often the
     * client gets a keep-alive once the answer is committed, the hard bound of one attempt, and
     * how often an attempt that ends before any useful event is re-opened on the same account.
     * These are the gateway's own timers: none of them counts for a breaker, a cooldown or a
     * lockout (BO-7).
     *
     * @param readinessTimeoutMs the longest wait for the first useful event (default 80 000;
     *        1 000–1 800 000); over it: 504 {@code STREAM_READINESS_TIMEOUT}, nothing sent to the client
     * @param idleTimeoutMs the longest gap without model output once the stream started (ST-1;
     *        default 180 000; 0 = off, else 1 000–3 600 000); reasoning frames restart it, heartbeats don't
     * @param keepAliveIntervalMs SSE keep-alive comments to the client once the answer is committed
     *        (default 15 000; 0 = off, else 1 000–300 000)
     * @param attemptDeadlineMs the hard bound of one attempt, whatever it sends (default 1 800 000;
     *        60 000–86 400 000)
     * @param earlyEofRetries re-attempts on the same account after an EOF before any useful event
     *        (default 1; 0–3); when they are spent: 502 {@code STREAM_EARLY_EOF}
     * @param throughputWatchdog the optional slow-stream watchdog (ST-2, ST-3)
     */
    public record StreamRecovery(long readinessTimeoutMs, long idleTimeoutMs, long keepAliveIntervalMs, long attemptDeadlineMs,
            int earlyEofRetries, ThroughputWatchdog throughputWatchdog) {
        /**
         * The spec's defaults. Readiness 80 s as OmniRoute. Idle 3 min: reasoning frames restart
         * it and heartbeats don't, so that much silence after output started is a dead stream,
         * while OmniRoute's 10 min left agents hanging (OmniRoute #1716). Keep-alive 15 s, below
         * the 30–60 s idle timeouts of common proxies. Deadline 30 min: long agent outputs at slow
         * token rates run 10 min and more.
         */
        public static final StreamRecovery DEFAULT = new StreamRecovery(80_000, 180_000, 15_000, 1_800_000, 1, ThroughputWatchdog.DEFAULT);

        /** Validates. */
        public StreamRecovery {
            requireNonNull(throughputWatchdog, "throughputWatchdog");
        }

        /**
         * The slow-stream throughput watchdog (ST-2, ST-3): once the warm-up is over and one full
         * window has passed, an attempt whose useful output (UTF-8 bytes of text deltas) in the
         * last window falls below the minimum rate is abandoned. Heartbeats and metadata are not
         * progress; tool-call and reasoning events pause the measurement.
         *
         * @param enabled off by default (env {@code STREAM_THROUGHPUT_WATCHDOG_ENABLED})
         * @param windowMs the sliding window (default 60 000; 5 000–600 000)
         * @param warmupMs no verdict before this much time (default 30 000; 0–600 000)
         * @param minBytesPerSecond the lowest acceptable rate over a window (default 8 ≈ 2 tokens/s;
         *        1–100 000)
         * @param minMeasurableBytes outputs shorter than this are never judged (default 256;
         *        0–1 048 576)
         */
        public record ThroughputWatchdog(boolean enabled, long windowMs, long warmupMs, long minBytesPerSecond,
                long minMeasurableBytes) {
            /**
             * The spec's defaults: off; 8 B/s ≈ 2 tokens/s over a 60 s window after a 30 s
             * warm-up; outputs under 256 bytes are never judged.
             */
            public static final ThroughputWatchdog DEFAULT = new ThroughputWatchdog(false, 60_000, 30_000, 8, 256);
        }
    }

    /**
     * Breaker thresholds and timing of one provider class (CB-2, CB-4).
     *
     * @param degradationThreshold failures that make the breaker DEGRADED (≤ failureThreshold − 1)
     * @param failureThreshold failures that open the breaker
     * @param resetTimeoutMs the base open period
     * @param maxBackoffMultiplier cap of the open period, as a multiple of resetTimeoutMs
     * @param backoffEscalationCount open cycles served at resetTimeoutMs before the period doubles
     * @param cooldownByKind open period by the last failure's kind (a {@code FailureReason} wire
     *     name, e.g. {@code server_error}), overriding resetTimeoutMs; empty by default
     */
    public record BreakerProfile(int degradationThreshold, int failureThreshold, long resetTimeoutMs,
            int maxBackoffMultiplier, int backoffEscalationCount, Map<String, Long> cooldownByKind) {
        /** Copies the map. */
        public BreakerProfile {
            cooldownByKind = Map.copyOf(cooldownByKind);
        }
    }

    /**
     * Breaker profiles by provider class (CB-2).
     *
     * @param oauth OAuth connections' providers
     * @param apikey API-key providers
     * @param local local servers
     */
    public record CircuitBreakerSettings(BreakerProfile oauth, BreakerProfile apikey, BreakerProfile local) {
        /**
         * The profile of a class.
         *
         * @param c the class
         * @return its profile
         */
        public BreakerProfile forClass(ProviderClass c) {
            return switch (c) {
                case OAUTH -> oauth;
                case APIKEY -> apikey;
                case LOCAL -> local;
            };
        }
    }

    /**
     * One window-gate profile (PC-2).
     *
     * @param failureThreshold failures inside the window that make the provider cool down
     * @param failureWindowMs the window
     * @param cooldownMs how long it then cools down
     */
    public record WindowProfile(int failureThreshold, long failureWindowMs, long cooldownMs) {
    }

    /**
     * The provider cooldown window gate (§7).
     *
     * @param enabled master switch, off by default (PC-1)
     * @param minRetryCooldownMs first connection-level entry (PC-3)
     * @param maxRetryCooldownMs cap of connection-level entries (PC-3)
     * @param oauth window profile of OAuth providers
     * @param apikey window profile of API-key providers
     * @param local window profile of local servers
     */
    public record ProviderCooldownSettings(boolean enabled, long minRetryCooldownMs, long maxRetryCooldownMs,
            WindowProfile oauth, WindowProfile apikey, WindowProfile local) {
        /**
         * The profile of a class.
         *
         * @param c the class
         * @return its profile
         */
        public WindowProfile forClass(ProviderClass c) {
            return switch (c) {
                case OAUTH -> oauth;
                case APIKEY -> apikey;
                case LOCAL -> local;
            };
        }
    }

    /**
     * Connection cooldown durations of one class (CC-2).
     *
     * @param baseCooldownMs first cooldown
     * @param maxBackoffSteps steps the cooldown may double
     * @param maxCooldownMs cap of the formula (and of non-authoritative hints)
     */
    public record CooldownProfile(long baseCooldownMs, int maxBackoffSteps, long maxCooldownMs) {
    }

    /**
     * Connection cooldown by class (CC-2). Local connections use the API-key profile.
     *
     * @param oauth OAuth connections
     * @param apikey API-key (and local) connections
     */
    public record ConnectionCooldownSettings(CooldownProfile oauth, CooldownProfile apikey) {
        /**
         * The profile of a class.
         *
         * @param c the class
         * @return its profile
         */
        public CooldownProfile forClass(ProviderClass c) {
            return c == ProviderClass.OAUTH ? oauth : apikey;
        }
    }

    /**
     * CC-5.
     *
     * @param enabled whether a stream stall cools the connection (default false)
     */
    public record StreamStallCooldown(boolean enabled) {
    }

    /**
     * Whether an upstream {@code 503} cools the connection that got it (issue 32), beside the
     * provider breaker, which counts every 503 either way. Off by default: a 503 says the service
     * is unavailable, for every key of it alike, so cooling the key that happened to ask only
     * moves the next request to a sibling key of the same unavailable service and keeps this one
     * out after the service is back; the breaker is the mechanism for a service. Turn it on when
     * each connection is its own server (self-hosted or local upstreams, where a 503 means "this
     * server is loading or full").
     *
     * @param enabled whether a 503 cools the connection (default false)
     */
    public record ServiceUnavailableCooldown(boolean enabled) {
        /** The default: a 503 does not cool the connection. */
        public static final ServiceUnavailableCooldown DEFAULT = new ServiceUnavailableCooldown(false);
    }

    /**
     * Model lockout (ML-2).
     *
     * @param enabled master switch (default false)
     * @param errorCodes statuses that count as a model-scoped failure
     * @param baseCooldownMs first lockout
     * @param maxCooldownMs cap, ≥ baseCooldownMs
     * @param maxBackoffSteps max exponential steps
     * @param useExponentialBackoff whether repeats escalate
     */
    public record ModelLockoutSettings(boolean enabled, List<Integer> errorCodes, long baseCooldownMs, long maxCooldownMs,
            int maxBackoffSteps, boolean useExponentialBackoff) {
        /** Copies the list. */
        public ModelLockoutSettings {
            errorCodes = List.copyOf(errorCodes);
        }
    }
}
