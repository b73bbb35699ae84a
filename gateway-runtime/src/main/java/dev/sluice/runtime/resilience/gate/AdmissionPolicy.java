package dev.sluice.runtime.resilience.gate;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.RequestQueue;
import dev.sluice.runtime.store.Connection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What limits a request on a connection (SPEC §12, §14): the connection's caps and queue bounds,
 * from the live {@code requestQueue} settings, the connection's own {@code maxConcurrent} and its
 * {@code rateLimitOverrides}, and whether the request queue protects it.
 *
 * <ul>
 * <li>QC-1: the connection cap is the stricter of {@code maxConcurrent} and
 *     {@code rateLimitOverrides.maxConcurrent} (0 or absent: no cap).</li>
 * <li>QC-2: the model cap is {@code rateLimitOverrides.modelConcurrency[upstream model]}.</li>
 * <li>RQ-3: {@code maxWaitMs} is the connection's {@code rateLimitOverrides.maxWaitMs} when set
 *     (positive), else the setting (which already carries env below persisted); clamped to 1 ms–24 h.</li>
 * <li>RQ-10: {@code rateLimitOverrides.requestsPerMinute} / {@code minTimeBetweenRequestsMs} pace
 *     starts (the longer spacing wins); unset, nothing paces.</li>
 * <li>RQ-7, RQ-8: protected when {@code rateLimitProtection} is true, or when auto-enable is on
 *     (env {@code RATE_LIMIT_AUTO_ENABLE} beats the setting) and the connection is an API key.</li>
 * </ul>
 */
public final class AdmissionPolicy {

    private static final System.Logger LOG = System.getLogger(AdmissionPolicy.class.getName());
    /** Parsed overrides by their JSON text; bounded, since connections are few. */
    private static final int OVERRIDES_CACHE_MAX = 4_096;

    private final Supplier<ResilienceSettings> settings;
    private final Boolean autoEnableOverride;
    private final Function<String, Map<String, Object>> jsonObjectParser;
    private final ConcurrentHashMap<String, Overrides> parsed = new ConcurrentHashMap<>();
    private final java.util.Set<String> modelScopedProviders;

    /**
     * The per-connection overrides of {@code rateLimitOverrides} (DM-1), 0 meaning "not set".
     *
     * @param maxConcurrent connection cap
     * @param modelConcurrency cap per upstream model
     * @param maxWaitMs queue wait bound
     * @param executionMaxWaitMs execution bound
     * @param requestsPerMinute configured pace (RQ-10): starts spread evenly, one per 60 000 / rpm ms
     * @param minTimeBetweenRequestsMs configured pace (RQ-10): least time between two starts
     */
    public record Overrides(int maxConcurrent, Map<String, Integer> modelConcurrency, long maxWaitMs, long executionMaxWaitMs,
            long requestsPerMinute, long minTimeBetweenRequestsMs) {
        /** None set. */
        public static final Overrides NONE = new Overrides(0, Map.of(), 0, 0, 0, 0);

        /** RQ-10: the least time between two starts these overrides ask for, ms (0: none). */
        long minSpacingMs() {
            long fromRpm = requestsPerMinute > 0 ? (60_000 + requestsPerMinute - 1) / requestsPerMinute : 0;
            return Math.max(fromRpm, minTimeBetweenRequestsMs);
        }

        /** Copies. */
        public Overrides {
            modelConcurrency = Map.copyOf(modelConcurrency);
        }
    }

    /**
     * Creates the policy.
     *
     * @param settings the live resilience settings ({@code requestQueue})
     * @param autoEnableOverride {@code RATE_LIMIT_AUTO_ENABLE} as read at start, or null when unset
     * @param jsonObjectParser parses a connection's {@code rateLimitOverrides} JSON into plain Java values
     * @param modelScopedProviders providers whose upstream limits are per model (RQ-4; plugins declare them)
     */
    public AdmissionPolicy(Supplier<ResilienceSettings> settings, Boolean autoEnableOverride,
            Function<String, Map<String, Object>> jsonObjectParser, java.util.Set<String> modelScopedProviders) {
        this.modelScopedProviders = java.util.Set.copyOf(modelScopedProviders);
        this.settings = settings;
        this.autoEnableOverride = autoEnableOverride;
        this.jsonObjectParser = jsonObjectParser;
    }

    /**
     * Reads {@code RATE_LIMIT_AUTO_ENABLE} (RQ-7): {@code false/0/off}, {@code true/1/on}; anything
     * else is ignored with a warning.
     *
     * @param value the variable's value, or null
     * @return the override, or null
     */
    public static Boolean autoEnableFromEnv(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "true", "1", "on" -> Boolean.TRUE;
            case "false", "0", "off" -> Boolean.FALSE;
            default -> {
                LOG.log(System.Logger.Level.WARNING, "environment variable RATE_LIMIT_AUTO_ENABLE = \"" + value
                        + "\" is not one of true/1/on, false/0/off; ignored");
                yield null;
            }
        };
    }

    /**
     * Whether a provider's limits are per model (RQ-4): its queue pauses hold one model, and a long
     * structured {@code RetryInfo} locks the model instead of pausing the queue.
     *
     * @param provider the provider id
     * @return true when per model
     */
    public boolean modelScoped(String provider) {
        return modelScopedProviders.contains(provider);
    }

    /**
     * Whether the request queue protects a connection (RQ-7, RQ-8).
     *
     * @param c the connection
     * @return true when protected
     */
    public boolean protects(Connection c) {
        if (c.rateLimitProtection()) {
            return true;
        }
        boolean auto = autoEnableOverride != null ? autoEnableOverride : settings.get().requestQueue().autoEnableApiKeyProviders();
        return auto && c.authType() == ProviderClass.APIKEY && c.enabled();
    }

    /**
     * The limits of a request for {@code upstreamModel} on {@code c}.
     *
     * @param c the connection
     * @param upstreamModel the model string sent upstream
     * @return the limits
     */
    public ConnectionGates.Limits limits(Connection c, String upstreamModel) {
        return limits(c, upstreamModel, false);
    }

    /**
     * The limits of a request for {@code upstreamModel} on {@code c}, for a quota-share combo's
     * request when {@code quotaShare} (QC-3): with {@code quotaShareConcurrencyLimit.enabled} off,
     * the connection cap does not hold it (model caps still do).
     *
     * @param c the connection
     * @param upstreamModel the model string sent upstream
     * @param quotaShare whether the request is a quota-share combo's
     * @return the limits
     */
    public ConnectionGates.Limits limits(Connection c, String upstreamModel, boolean quotaShare) {
        ResilienceSettings s = settings.get();
        RequestQueue rq = s.requestQueue();
        Overrides o = overrides(c);
        int connectionCap = quotaShare && !s.quotaShareConcurrencyLimit().enabled() ? 0
                : strictest(c.maxConcurrent() == null ? 0 : c.maxConcurrent(), o.maxConcurrent());
        int modelCap = o.modelConcurrency().getOrDefault(upstreamModel, 0);
        long maxWaitMs = clampMs(o.maxWaitMs() > 0 ? o.maxWaitMs() : rq.maxWaitMs());
        return new ConnectionGates.Limits(connectionCap, modelCap, protects(c), maxWaitMs, rq.maxQueueDepth(),
                Math.min(o.minSpacingMs(), RequestQueue.MAX_BOUND_MS));
    }

    /**
     * RQ-2: the execution bound of an attempt on {@code c}, raised to the attempt's own start
     * timeout when that is longer.
     *
     * @param c the connection
     * @param startTimeoutMs the executor's own fetch-start timeout
     * @return ms
     */
    public long executionMaxWaitMs(Connection c, long startTimeoutMs) {
        Overrides o = overrides(c);
        long bound = clampMs(o.executionMaxWaitMs() > 0 ? o.executionMaxWaitMs() : settings.get().requestQueue().executionMaxWaitMs());
        return Math.max(bound, startTimeoutMs);
    }

    private static int strictest(int a, int b) {
        if (a <= 0) {
            return Math.max(b, 0);
        }
        return b <= 0 ? a : Math.min(a, b);
    }

    private static long clampMs(long ms) {
        return Math.clamp(ms, 1, RequestQueue.MAX_BOUND_MS);
    }

    /**
     * The connection's parsed {@code rateLimitOverrides}.
     *
     * @param c the connection
     * @return the overrides ({@link Overrides#NONE} when absent or unreadable)
     */
    public Overrides overrides(Connection c) {
        String json = c.rateLimitOverridesJson();
        if (json == null || json.isBlank()) {
            return Overrides.NONE;
        }
        Overrides o = parsed.get(json);
        if (o == null) {
            o = parse(json);
            if (parsed.size() >= OVERRIDES_CACHE_MAX) {
                parsed.clear();
            }
            parsed.put(json, o);
        }
        return o;
    }

    private Overrides parse(String json) {
        Map<String, Object> m;
        try {
            m = jsonObjectParser.apply(json);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "unreadable rateLimitOverrides ignored: " + e.getMessage());
            return Overrides.NONE;
        }
        Map<String, Integer> models = new HashMap<>();
        if (m.get("modelConcurrency") instanceof Map<?, ?> mc) {
            mc.forEach((k, v) -> {
                if (k instanceof String model && v instanceof Number n && n.intValue() > 0) {
                    models.put(model, n.intValue());
                }
            });
        }
        return new Overrides(m.get("maxConcurrent") instanceof Number n ? Math.max(0, n.intValue()) : 0, models,
                m.get("maxWaitMs") instanceof Number w ? Math.max(0, w.longValue()) : 0,
                m.get("executionMaxWaitMs") instanceof Number x ? Math.max(0, x.longValue()) : 0,
                m.get("requestsPerMinute") instanceof Number r ? Math.max(0, r.longValue()) : 0,
                m.get("minTimeBetweenRequestsMs") instanceof Number t ? Math.max(0, t.longValue()) : 0);
    }
}
