package dev.sluice.runtime.config;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.redis.RedisSettings;
import dev.sluice.runtime.store.DatabaseSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Start-up settings of one Sluice process. Precedence (SPEC SE-2): built-in default &lt; config
 * file &lt; environment variable.
 *
 * @param host listen address
 * @param port listen port; 0 picks a free port
 * @param dataDir folder of {@code sluice.db} and the generated secret key
 * @param pluginsDir folder scanned for plugin JARs
 * @param strictPlugins when true a plugin that fails to load stops start-up (for CI)
 * @param adminKey the admin key to accept, or null to generate one on first start
 * @param secretKey base64 AES key for provider credentials at rest, or null to use/generate
 *     {@code <dataDir>/secret.key}
 * @param maxBodyBytes client request body limit (SPEC API-6: 10 MiB)
 * @param connectTimeout upstream connect timeout ({@code upstream.connectTimeoutMs}, issue 32: 10 s)
 * @param headersTimeout upstream response-headers / read timeout (SPEC ST-0: 110 s)
 * @param pluginSettings per plugin name, its settings
 * @param resilience the {@code resilience:} subtree of the config file as nested maps, lists and
 *     text values (SE-2; read by {@code ResilienceSettingsLayers}), empty when absent
 * @param resilienceEnv the environment variables that override resilience settings
 *     ({@code ResilienceEnvironment.OVERRIDES}) that are set, and only those
 * @param egressProbeUrl {@code upstream.egressProbeUrl}: a URL answering the caller's public IP as
 *     text, fetched through a connection's route to learn its egress IP (SPEC EB-2); null (the
 *     default) to learn egress IPs only from bound local addresses
 * @param egressLockProviders {@code SLUICE_EGRESS_IP_LOCK_PROVIDERS} (or
 *     {@code upstream.egressIpLockProviders}): the egress-bucketed providers (SPEC EB-1); null =
 *     the plugins' declared family, {@code none} = no provider, a comma list = exactly those
 * @param emergencyFallback {@code SLUICE_EMERGENCY_FALLBACK}: the model tried last when every
 *     target of a combo failed (SPEC OF-3), or null
 * @param modelAliases {@code routing.modelAliases}: alias → model (SPEC API-1), the defaults that a
 *     {@code PATCH /api/settings} replaces
 * @param sessionAffinityTtlMs {@code SLUICE_SESSION_AFFINITY_TTL_MS} (or
 *     {@code routing.sessionAffinityTtlMs}): how long a session stays pinned after its last request
 *     (SPEC SA-2), 0–86 400 000 ms, 0 = off (the default); a {@code PATCH /api/settings} overrides it
 * @param observability {@code GET /metrics} access, the access log's destination, the usage flush interval
 * @param idleConnectionTimeout {@code server.idleConnectionTimeoutMs}: a client connection with no
 *     request in progress — idle keep-alive, or headers or a body that stopped arriving — is closed
 *     after this long (issue 19)
 * @param upstreamLimits {@code upstream.maxAnswerBytes}, {@code upstream.maxEventBytes},
 *     {@code upstream.answerBufferBytes}: what an upstream can make Sluice buffer (issue 19)
 * @param database {@code SLUICE_DATABASE_URL} (or {@code database.url}) with its credentials: the
 *     PostgreSQL database several instances share (NF-6), or {@link DatabaseSettings#SQLITE}, the
 *     data folder's SQLite file (the default)
 * @param redis {@code SLUICE_REDIS_URL} (or {@code redis.url}): the Redis/Valkey server several
 *     instances share their hot resilience state through (NF-6; needs {@code database} too), or
 *     {@link RedisSettings#NONE}
 * @param modelDiscoveryInterval {@code SLUICE_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS} (or
 *     {@code upstream.modelDiscoveryIntervalMs}): how often each OpenAI-compatible connection's
 *     {@code GET /models} is read (issue 32); zero = never; null = the default, hourly
 * @param clientLimits {@code server.firstByteTimeoutMs}, {@code server.requestHeadTimeoutMs},
 *     {@code server.maxConnections}: what client connections can make one instance hold (issue 29)
 * @param catalog the config file's {@code models:} section and {@code combos.autoCombos} (issue 34)
 */
public record SluiceConfig(
        String host,
        int port,
        Path dataDir,
        Path pluginsDir,
        boolean strictPlugins,
        String adminKey,
        String secretKey,
        long maxBodyBytes,
        Duration connectTimeout,
        Duration headersTimeout,
        Map<String, Map<String, String>> pluginSettings,
        Map<String, Object> resilience,
        Map<String, String> resilienceEnv,
        URI egressProbeUrl,
        String egressLockProviders,
        String emergencyFallback,
        Map<String, String> modelAliases,
        long sessionAffinityTtlMs,
        Observability observability,
        Duration idleConnectionTimeout,
        UpstreamLimits upstreamLimits,
        DatabaseSettings database, RedisSettings redis, ClientLimits clientLimits, Duration modelDiscoveryInterval,
        CatalogSettings catalog) {

    /**
     * Who may scrape the metrics, where the access log goes, how often usage is written.
     *
     * @param metricsPublic {@code SLUICE_METRICS_PUBLIC} (or {@code metrics.public}): {@code GET /metrics}
     *     without the admin key; false (the default) asks for it like every admin route
     * @param accessLog {@code SLUICE_ACCESS_LOG} (or {@code logging.accessLog}): {@value #STDOUT},
     *     {@value #OFF}, or the absolute path of a size-rotated file (the default:
     *     {@code <dataDir>/logs/access.log})
     * @param proxyLogSuccessSample {@code SLUICE_PROXY_LOG_SUCCESS_SAMPLE} (or
     *     {@code logging.proxyLogSuccessSample}): the share of successful upstream attempts persisted
     *     as {@code proxy_logs} rows, 0–1 (default {@value #DEFAULT_PROXY_LOG_SUCCESS_SAMPLE});
     *     failures are always persisted (issue 26)
     * @param usageFlushInterval {@code SLUICE_USAGE_FLUSH_INTERVAL_MS} (or {@code usage.flushIntervalMs}):
     *     how often the usage counted in memory is added to the {@code usage} table, and so the most
     *     a crash can lose; {@value #MIN_USAGE_FLUSH_INTERVAL_MS}–{@value #MAX_USAGE_FLUSH_INTERVAL_MS} ms,
     *     default {@value #DEFAULT_USAGE_FLUSH_INTERVAL_MS}
     */
    public record Observability(boolean metricsPublic, String accessLog, double proxyLogSuccessSample, Duration usageFlushInterval) {
        /** The access log goes to standard output. */
        public static final String STDOUT = "stdout";
        /** No access log. */
        public static final String OFF = "off";
        /** The default access log file, under the data folder. */
        public static final String DEFAULT_ACCESS_LOG_FILE = "logs/access.log";
        /** Usage is written every 10 s by default: a crash loses at most that. */
        public static final long DEFAULT_USAGE_FLUSH_INTERVAL_MS = 10_000;
        /** The shortest usage flush interval (a write per second and instance at most). */
        public static final long MIN_USAGE_FLUSH_INTERVAL_MS = 1_000;
        /** The longest usage flush interval. */
        public static final long MAX_USAGE_FLUSH_INTERVAL_MS = 60_000;

        /** The default share of successful attempts persisted: 1 %. */
        public static final double DEFAULT_PROXY_LOG_SUCCESS_SAMPLE = 0.01;

        /** Validates. */
        public Observability {
            requireNonNull(accessLog, "accessLog is null");
            if (!(proxyLogSuccessSample >= 0 && proxyLogSuccessSample <= 1)) {
                throw new IllegalArgumentException("proxyLogSuccessSample must be 0–1, got " + proxyLogSuccessSample);
            }
            usageFlushInterval = usageFlushInterval == null ? Duration.ofMillis(DEFAULT_USAGE_FLUSH_INTERVAL_MS) : usageFlushInterval;
            if (usageFlushInterval.toMillis() < MIN_USAGE_FLUSH_INTERVAL_MS || usageFlushInterval.toMillis() > MAX_USAGE_FLUSH_INTERVAL_MS) {
                throw new IllegalArgumentException("usageFlushInterval must be " + MIN_USAGE_FLUSH_INTERVAL_MS + "–"
                        + MAX_USAGE_FLUSH_INTERVAL_MS + " ms, got " + usageFlushInterval.toMillis());
            }
        }

        /**
         * Metrics access and the access log; the default success sample, usage written every
         * {@value #DEFAULT_USAGE_FLUSH_INTERVAL_MS} ms.
         *
         * @param metricsPublic {@code GET /metrics} without the admin key
         * @param accessLog {@value #STDOUT}, {@value #OFF} or a file path
         */
        public Observability(boolean metricsPublic, String accessLog) {
            this(metricsPublic, accessLog, DEFAULT_PROXY_LOG_SUCCESS_SAMPLE, null);
        }

        /**
         * The same with another success sample.
         *
         * @param sample the share of successful attempts persisted, 0–1
         * @return the copy
         */
        public Observability withProxyLogSuccessSample(double sample) {
            return new Observability(metricsPublic, accessLog, sample, usageFlushInterval);
        }

        /**
         * The same with another usage flush interval.
         *
         * @param interval how often usage is written
         * @return the copy
         */
        public Observability withUsageFlushInterval(Duration interval) {
            return new Observability(metricsPublic, accessLog, proxyLogSuccessSample, interval);
        }

        /**
         * The defaults: metrics behind the admin key, the access log in the data folder.
         *
         * @param dataDir the data folder
         * @return the defaults
         */
        public static Observability defaults(Path dataDir) {
            return new Observability(false, dataDir.resolve(DEFAULT_ACCESS_LOG_FILE).toAbsolutePath().toString());
        }
    }

    /** Default listen address: loopback only. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Default port, as OmniRoute. */
    public static final int DEFAULT_PORT = 20128;
    /** Default request body limit: 10 MiB. */
    public static final long DEFAULT_MAX_BODY_BYTES = 10L * 1024 * 1024;
    /**
     * Default upstream connect timeout: 10 s (issue 32). A connect completes in one round trip; one
     * that has not in 10 s is an address that drops packets, and the next connection serves sooner.
     */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default upstream response-headers timeout. */
    public static final Duration DEFAULT_HEADERS_TIMEOUT = Duration.ofSeconds(110);

    /** Default {@code upstream.modelDiscoveryIntervalMs}: hourly (a provider's catalogue changes in days). */
    public static final Duration DEFAULT_MODEL_DISCOVERY_INTERVAL = Duration.ofMillis(3_600_000L);

    /**
     * This configuration with another model discovery interval.
     *
     * @param target the interval; zero turns discovery off
     * @return the copy
     */
    public SluiceConfig withModelDiscoveryInterval(Duration target) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, observability, idleConnectionTimeout, upstreamLimits, database, redis, clientLimits,
                target, catalog);
    }

    /** Default idle client connection timeout. */
    public static final Duration DEFAULT_IDLE_CONNECTION_TIMEOUT = Duration.ofSeconds(60);

    /**
     * This configuration with other upstream memory bounds.
     *
     * @param limits the bounds
     * @return the copy
     */
    public SluiceConfig withUpstreamLimits(UpstreamLimits limits) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, observability, idleConnectionTimeout, limits, database, redis, clientLimits, modelDiscoveryInterval, catalog);
    }

    /**
     * The same configuration on another database.
     *
     * @param target where the durable records live
     * @return a copy
     */
    public SluiceConfig withDatabase(DatabaseSettings target) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, observability, idleConnectionTimeout, upstreamLimits, target, redis, clientLimits, modelDiscoveryInterval, catalog);
    }

    /**
     * The same configuration sharing its hot resilience state through another Redis server.
     *
     * @param target the Redis server, or {@link RedisSettings#NONE}
     * @return a copy
     */
    public SluiceConfig withRedis(RedisSettings target) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, observability, idleConnectionTimeout, upstreamLimits, database, target, clientLimits, modelDiscoveryInterval, catalog);
    }

    /** The longest session affinity TTL: one day (as OmniRoute). */
    public static final long MAX_SESSION_AFFINITY_TTL_MS = 86_400_000L;

    /**
     * The model catalog's and the virtual combos' settings (issue 34).
     *
     * @param models the config file's {@code models:} section: {@code provider/model} to figure name
     *     ({@code contextWindow}, {@code maxOutputTokens}, {@code inputPerMillion},
     *     {@code outputPerMillion}, {@code cachedInputPerMillion}, {@code tier}) to its text;
     *     checked when the server starts
     * @param autoCombos {@code combos.autoCombos}: whether the virtual {@code auto} combos exist (default true)
     */
    public record CatalogSettings(Map<String, Map<String, String>> models, boolean autoCombos) {
        /** No models, virtual combos on. */
        public static final CatalogSettings DEFAULTS = new CatalogSettings(Map.of(), true);

        /** Copies. */
        public CatalogSettings {
            Map<String, Map<String, String>> copy = new LinkedHashMap<>();
            (models == null ? Map.<String, Map<String, String>>of() : models).forEach((k, v) -> copy.put(k,
                    Collections.unmodifiableMap(new LinkedHashMap<>(v))));
            models = Collections.unmodifiableMap(copy);
        }
    }

    /**
     * This configuration with other catalog settings.
     *
     * @param target the settings
     * @return the copy
     */
    public SluiceConfig withCatalog(CatalogSettings target) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, observability, idleConnectionTimeout, upstreamLimits, database, redis, clientLimits,
                modelDiscoveryInterval, target);
    }

    /** Validates and copies. */
    public SluiceConfig {
        catalog = catalog == null ? CatalogSettings.DEFAULTS : catalog;
        upstreamLimits = upstreamLimits == null ? UpstreamLimits.DEFAULTS : upstreamLimits;
        clientLimits = clientLimits == null ? ClientLimits.defaults() : clientLimits;
        modelDiscoveryInterval = modelDiscoveryInterval == null ? DEFAULT_MODEL_DISCOVERY_INTERVAL : modelDiscoveryInterval;
        if (modelDiscoveryInterval.isNegative()) {
            throw new IllegalArgumentException("upstream.modelDiscoveryIntervalMs must be 0 (off) or positive");
        }
        idleConnectionTimeout = idleConnectionTimeout == null ? DEFAULT_IDLE_CONNECTION_TIMEOUT : idleConnectionTimeout;
        database = database == null ? DatabaseSettings.SQLITE : database;
        redis = redis == null ? RedisSettings.NONE : redis;
        if (redis.configured() && !database.postgres()) {
            // connection ids and every record differ per instance on SQLite: hot state keyed by them would be shared nonsense
            throw new IllegalArgumentException("SLUICE_REDIS_URL (redis.url) is set but SLUICE_DATABASE_URL (database.url) is not:"
                    + " shared hot state needs the shared PostgreSQL database (connection ids differ per SQLite file);"
                    + " set both, or unset SLUICE_REDIS_URL for a single instance");
        }
        if (idleConnectionTimeout.isNegative() || idleConnectionTimeout.isZero()) {
            throw new IllegalArgumentException("idleConnectionTimeout must be positive");
        }
        if (sessionAffinityTtlMs < 0 || sessionAffinityTtlMs > MAX_SESSION_AFFINITY_TTL_MS) {
            throw new IllegalArgumentException("sessionAffinityTtlMs must be 0–" + MAX_SESSION_AFFINITY_TTL_MS + " (0 = off)");
        }
        modelAliases = modelAliases == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(modelAliases));
        requireNonNull(host, "host is null");
        requireNonNull(dataDir, "dataDir is null");
        observability = observability == null ? Observability.defaults(dataDir) : observability;
        requireNonNull(pluginsDir, "pluginsDir is null");
        requireNonNull(connectTimeout, "connectTimeout is null");
        requireNonNull(headersTimeout, "headersTimeout is null");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is out of range 0-65535");
        }
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("maxBodyBytes must be positive");
        }
        pluginSettings = pluginSettings == null ? Map.of() : Map.copyOf(pluginSettings);
        resilience = resilience == null ? Map.of() : immutableMap(resilience);
        resilienceEnv = resilienceEnv == null ? Map.of() : Map.copyOf(resilienceEnv);
    }

    /**
     * The essentials; every other setting takes its default (change one with a {@code with…} copy).
     *
     * @param host listen address
     * @param port listen port; 0 picks a free port
     * @param dataDir data folder
     * @param pluginsDir plugins folder
     * @param strictPlugins stop start-up when a plugin fails to load
     * @param adminKey the admin key, or null
     * @param secretKey base64 AES key, or null
     * @param maxBodyBytes client request body limit
     * @param connectTimeout upstream connect timeout
     * @param headersTimeout upstream response-headers timeout
     * @param pluginSettings per plugin name, its settings
     */
    public SluiceConfig(String host, int port, Path dataDir, Path pluginsDir, boolean strictPlugins, String adminKey,
            String secretKey, long maxBodyBytes, Duration connectTimeout, Duration headersTimeout,
            Map<String, Map<String, String>> pluginSettings) {
        this(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout, headersTimeout,
                pluginSettings, Map.of(), Map.of(), null, null, null, Map.of(), 0, null, DEFAULT_IDLE_CONNECTION_TIMEOUT,
                UpstreamLimits.DEFAULTS, DatabaseSettings.SQLITE, RedisSettings.NONE, null, null, null);
    }

    /**
     * This configuration with other metrics and access-log settings.
     *
     * @param target the settings
     * @return the copy
     */
    public SluiceConfig withObservability(Observability target) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, target, idleConnectionTimeout, upstreamLimits, database, redis, clientLimits, modelDiscoveryInterval, catalog);
    }

    /**
     * This configuration with another idle client connection timeout.
     *
     * @param target the timeout
     * @return the copy
     */
    public SluiceConfig withIdleConnectionTimeout(Duration target) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, observability, target, upstreamLimits, database, redis, clientLimits, modelDiscoveryInterval, catalog);
    }

    /**
     * This configuration with other client connection bounds.
     *
     * @param target the bounds
     * @return the copy
     */
    public SluiceConfig withClientLimits(ClientLimits target) {
        return new SluiceConfig(host, port, dataDir, pluginsDir, strictPlugins, adminKey, secretKey, maxBodyBytes, connectTimeout,
                headersTimeout, pluginSettings, resilience, resilienceEnv, egressProbeUrl, egressLockProviders, emergencyFallback,
                modelAliases, sessionAffinityTtlMs, observability, idleConnectionTimeout, upstreamLimits, database, redis, target, modelDiscoveryInterval, catalog);
    }

    /** A deep, unmodifiable copy of a YAML subtree (maps and lists copied at every level, order kept). */
    private static Map<String, Object> immutableMap(Map<String, ?> map) {
        Map<String, Object> out = new LinkedHashMap<>();
        map.forEach((k, v) -> out.put(requireNonNull(k, "resilience key is null"), immutable(v)));
        return Collections.unmodifiableMap(out);
    }

    private static Object immutable(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> out.put(String.valueOf(k), immutable(v)));
            return Collections.unmodifiableMap(out);
        }
        if (value instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(v -> out.add(immutable(v)));
            return Collections.unmodifiableList(out);
        }
        return requireNonNull(value, "resilience value is null");
    }

    /** Never shows the keys. */
    @Override
    public String toString() {
        return "SluiceConfig[host=" + host + ", port=" + port + ", dataDir=" + dataDir + ", pluginsDir=" + pluginsDir
                + ", strictPlugins=" + strictPlugins + ", adminKey=" + (adminKey == null ? "generated" : "***")
                + ", maxBodyBytes=" + maxBodyBytes + ", egressProbeUrl=" + (egressProbeUrl == null ? null : "set")
                + ", database=" + database + ", redis=" + redis + ", resilience=" + resilience + ", resilienceEnv=" + resilienceEnv.keySet() + "]";
    }
}
