package dev.sluice.runtime.config;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import dev.sluice.runtime.redis.RedisSettings;
import dev.sluice.runtime.store.DatabaseSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.sluice.runtime.settings.ResilienceEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads {@link SluiceConfig} from the YAML file and the environment (SPEC SH-5). The environment
 * is passed in, so tests need not touch the process environment. The {@code resilience:} subtree
 * and the resilience variables of the environment are handed on raw: the settings layers
 * ({@code dev.sluice.runtime.settings}) clamp or ignore bad values there instead of failing
 * start-up (SE-1).
 */
public final class ConfigLoader {

    private static final System.Logger LOG = System.getLogger(ConfigLoader.class.getName());

    /** Env: listen address. */
    public static final String ENV_HOST = "SLUICE_HOST";
    /** Env: listen port, 0 = any free port. */
    public static final String ENV_PORT = "SLUICE_PORT";
    /** Env: data folder. */
    public static final String ENV_DATA_DIR = "SLUICE_DATA_DIR";
    /** Env: plugins folder. */
    public static final String ENV_PLUGINS_DIR = "SLUICE_PLUGINS_DIR";
    /** Env: path of the YAML config file. */
    public static final String ENV_CONFIG = "SLUICE_CONFIG";
    /** Env: admin key to accept. */
    public static final String ENV_ADMIN_KEY = "SLUICE_ADMIN_KEY";
    /** Env: base64 AES key for credentials at rest. */
    public static final String ENV_SECRET_KEY = "SLUICE_SECRET_KEY";
    /** Env: refuse to start when a plugin fails to load. */
    public static final String ENV_STRICT_PLUGINS = "SLUICE_STRICT_PLUGINS";
    /** Environment: the emergency fallback model (SPEC OF-3). */
    public static final String ENV_EMERGENCY_FALLBACK = "SLUICE_EMERGENCY_FALLBACK";
    /** How long a session stays pinned to its connection (SPEC SA-2), ms; 0 = off. */
    public static final String ENV_SESSION_AFFINITY_TTL_MS = "SLUICE_SESSION_AFFINITY_TTL_MS";
    /** Environment: the egress-bucketed providers (SPEC EB-1). */
    /** {@code true}: {@code GET /metrics} answers without the admin key. */
    public static final String ENV_METRICS_PUBLIC = "SLUICE_METRICS_PUBLIC";
    /** Where the access log goes: {@code stdout}, {@code off} or a file path. */
    public static final String ENV_ACCESS_LOG = "SLUICE_ACCESS_LOG";
    /** The share of successful upstream attempts persisted in {@code proxy_logs}, 0–1. */
    public static final String ENV_PROXY_LOG_SUCCESS_SAMPLE = "SLUICE_PROXY_LOG_SUCCESS_SAMPLE";
    /** How often usage counted in memory is written to the database, ms (the most a crash loses). */
    public static final String ENV_USAGE_FLUSH_INTERVAL_MS = "SLUICE_USAGE_FLUSH_INTERVAL_MS";
    public static final String ENV_EGRESS_IP_LOCK_PROVIDERS = "SLUICE_EGRESS_IP_LOCK_PROVIDERS";
    /** The PostgreSQL JDBC URL of the shared durable store (NF-6); unset = the data folder's SQLite. */
    public static final String ENV_DATABASE_URL = "SLUICE_DATABASE_URL";
    /** The Redis/Valkey server of the shared hot resilience state (NF-6; needs {@link #ENV_DATABASE_URL}); unset = in memory. */
    public static final String ENV_REDIS_URL = "SLUICE_REDIS_URL";
    /** How long a permit whose instance stopped renewing it holds on, ms (default 5 000, issue 37). */
    public static final String ENV_REDIS_PERMIT_TTL_MS = "SLUICE_REDIS_PERMIT_TTL_MS";
    /** The PostgreSQL user (beats one in the URL). */
    public static final String ENV_DATABASE_USER = "SLUICE_DATABASE_USER";
    /** The PostgreSQL password (beats one in the URL). */
    public static final String ENV_DATABASE_PASSWORD = "SLUICE_DATABASE_PASSWORD";

    /** How often each OpenAI-compatible connection's {@code GET /models} is read, ms; 0 = never (beats {@code upstream.modelDiscoveryIntervalMs}). */
    public static final String ENV_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS = "SLUICE_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS";
    /** How long an upstream connect may take, ms, whatever the egress route (beats {@code upstream.connectTimeoutMs}). */
    public static final String ENV_UPSTREAM_CONNECT_TIMEOUT_MS = "SLUICE_UPSTREAM_CONNECT_TIMEOUT_MS";
    /** The most client connections open at once (beats {@code server.maxConnections}). */
    public static final String ENV_MAX_CONNECTIONS = "SLUICE_MAX_CONNECTIONS";
    /** How long a new connection may stay silent, ms (beats {@code server.firstByteTimeoutMs}). */
    public static final String ENV_FIRST_BYTE_TIMEOUT_MS = "SLUICE_FIRST_BYTE_TIMEOUT_MS";
    /** How long a request head may take to arrive, ms (beats {@code server.requestHeadTimeoutMs}). */
    public static final String ENV_REQUEST_HEAD_TIMEOUT_MS = "SLUICE_REQUEST_HEAD_TIMEOUT_MS";
    /** How long requests under way get to finish on SIGTERM, ms; 0 = none (beats {@code server.shutdownGraceMs}, issue 37). */
    public static final String ENV_SHUTDOWN_GRACE_MS = "SLUICE_SHUTDOWN_GRACE_MS";

    private ConfigLoader() {
    }

    /**
     * {@code upstream.maxAnswerBytes}, {@code upstream.maxEventBytes}, {@code upstream.answerBufferBytes},
     * {@code upstream.maxStreamBytes}, {@code upstream.bodyIdleTimeoutMs}, {@code upstream.answerDeadlineMs}.
     */
    private static UpstreamLimits upstreamLimits(Config file) {
        long answer = parseLong(file.get("upstream.maxAnswerBytes").asString()
                .orElse(String.valueOf(UpstreamLimits.DEFAULT_MAX_ANSWER_BYTES)), "upstream.maxAnswerBytes");
        long event = parseLong(file.get("upstream.maxEventBytes").asString()
                .orElse(String.valueOf(UpstreamLimits.DEFAULT_MAX_EVENT_BYTES)), "upstream.maxEventBytes");
        long budget = parseLong(file.get("upstream.answerBufferBytes").asString()
                .orElse(String.valueOf(Math.max(UpstreamLimits.DEFAULT_ANSWER_BUFFER_BYTES, answer))), "upstream.answerBufferBytes");
        long stream = parseLong(file.get("upstream.maxStreamBytes").asString()
                .orElse(String.valueOf(UpstreamLimits.DEFAULT_MAX_STREAM_BYTES)), "upstream.maxStreamBytes");
        if (event > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("upstream.maxEventBytes must be 1024–268435456 (1 KiB – 256 MiB), got " + event);
        }
        long idle = parseLong(file.get("upstream.bodyIdleTimeoutMs").asString()
                .orElse(String.valueOf(UpstreamLimits.DEFAULT_BODY_IDLE_TIMEOUT_MS)), "upstream.bodyIdleTimeoutMs");
        long deadline = parseLong(file.get("upstream.answerDeadlineMs").asString()
                .orElse(String.valueOf(UpstreamLimits.DEFAULT_ANSWER_DEADLINE_MS)), "upstream.answerDeadlineMs");
        return new UpstreamLimits(answer, (int) event, budget, stream, idle, deadline);
    }

    /**
     * Loads the configuration.
     *
     * @param home the installation folder (relative defaults resolve against it)
     * @param env the environment
     * @return the configuration
     * @throws IllegalArgumentException naming the setting when a value is invalid
     */
    public static SluiceConfig load(Path home, Map<String, String> env) {
        String configEnv = env.get(ENV_CONFIG);
        boolean explicitConfig = configEnv != null && !configEnv.isBlank();
        Path configFile = configFile(home, env);
        if (explicitConfig && !Files.isRegularFile(configFile)) {
            throw new IllegalArgumentException(ENV_CONFIG + " points to " + configFile + ", which is not a readable file");
        }
        Config file = Files.isRegularFile(configFile)
                ? Config.builder()
                        .disableEnvironmentVariablesSource()
                        .disableSystemPropertiesSource()
                        .addSource(ConfigSources.file(configFile))
                        .build()
                : Config.empty();

        String host = pick(env, ENV_HOST, file.get("server.host"), SluiceConfig.DEFAULT_HOST);
        String portSetting = env.get(ENV_PORT) != null && !env.get(ENV_PORT).isBlank() ? ENV_PORT : "server.port";
        int port = parseInt(pick(env, ENV_PORT, file.get("server.port"), String.valueOf(SluiceConfig.DEFAULT_PORT)), portSetting);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(portSetting + " must be between 0 and 65535 (0 = any free port), got " + port);
        }
        Path dataDir = home.resolve(pick(env, ENV_DATA_DIR, file.get("storage.dataDir"), "data"));
        Path pluginsDir = home.resolve(pick(env, ENV_PLUGINS_DIR, file.get("plugins.dir"), "plugins"));
        boolean strict = parseBoolean(pick(env, ENV_STRICT_PLUGINS, file.get("plugins.strict"), "false"),
                env.get(ENV_STRICT_PLUGINS) != null ? ENV_STRICT_PLUGINS : "plugins.strict");
        String adminKey = blankToNull(pick(env, ENV_ADMIN_KEY, file.get("security.adminKey"), null));
        String secretKey = blankToNull(pick(env, ENV_SECRET_KEY, file.get("security.secretKey"), null));
        long maxBody = parseLong(file.get("server.maxBodyBytes").asString().orElse(String.valueOf(SluiceConfig.DEFAULT_MAX_BODY_BYTES)),
                "server.maxBodyBytes");
        Duration connect = positiveMillis(env, ENV_UPSTREAM_CONNECT_TIMEOUT_MS, file, "upstream.connectTimeoutMs",
                SluiceConfig.DEFAULT_CONNECT_TIMEOUT);
        Duration headers = positiveMillis(file, "upstream.headersTimeoutMs", SluiceConfig.DEFAULT_HEADERS_TIMEOUT);
        URI egressProbeUrl = httpUrl(file, "upstream.egressProbeUrl");
        String egressLockProviders = blankToNull(pick(env, ENV_EGRESS_IP_LOCK_PROVIDERS, file.get("upstream.egressIpLockProviders"), null));
        String emergencyFallback = blankToNull(pick(env, ENV_EMERGENCY_FALLBACK, file.get("routing.emergencyFallback"), null));

        Map<String, Map<String, String>> pluginSettings = new LinkedHashMap<>();
        Config settings = file.get("plugins.settings");
        if (settings.exists()) {
            for (Config plugin : settings.asNodeList().orElse(List.of())) {
                Map<String, String> values = new LinkedHashMap<>();
                plugin.detach().asMap().orElse(Map.of()).forEach(values::put);
                pluginSettings.put(plugin.name(), values);
            }
        }
        Config resilience = file.get("resilience");
        Map<String, Object> resilienceTree = resilience.type() == Config.Type.OBJECT ? asMap(resilience) : Map.of();
        if (resilience.exists() && resilience.type() != Config.Type.OBJECT) {
            // not fatal, like every other bad resilience value (SE-1): the defaults stay
            LOG.log(System.Logger.Level.WARNING, "config file setting resilience is not an object; ignored");
        }
        Map<String, String> aliases = new LinkedHashMap<>();
        Config aliasNode = file.get("routing.modelAliases");
        if (aliasNode.exists()) {
            // Helidon splits keys at dots ("gpt-4.1" becomes gpt-4 > 1): a leaf's name is its path below the section
            aliasNode.detach().traverse().filter(Config::isLeaf).forEach(leaf -> leaf.asString().ifPresent(target -> {
                List<String> names = new ArrayList<>();
                for (Config.Key key = leaf.key(); !key.isRoot(); key = key.parent()) {
                    names.addFirst(key.name());
                }
                aliases.put(String.join(".", names), target);
            }));
        }
        String ttlName = env.get(ENV_SESSION_AFFINITY_TTL_MS) != null ? ENV_SESSION_AFFINITY_TTL_MS : "routing.sessionAffinityTtlMs";
        long affinityTtl = parseLong(pick(env, ENV_SESSION_AFFINITY_TTL_MS, file.get("routing.sessionAffinityTtlMs"), "0"), ttlName);
        if (affinityTtl < 0 || affinityTtl > SluiceConfig.MAX_SESSION_AFFINITY_TTL_MS) {
            throw new IllegalArgumentException(ttlName + " must be 0–" + SluiceConfig.MAX_SESSION_AFFINITY_TTL_MS + " ms (0 = off), got " + affinityTtl);
        }
        boolean metricsPublic = parseBoolean(pick(env, ENV_METRICS_PUBLIC, file.get("metrics.public"), "false"),
                env.get(ENV_METRICS_PUBLIC) != null ? ENV_METRICS_PUBLIC : "metrics.public");
        String accessLog = accessLog(home, dataDir, blankToNull(pick(env, ENV_ACCESS_LOG, file.get("logging.accessLog"), null)));
        String flushName = env.get(ENV_USAGE_FLUSH_INTERVAL_MS) != null && !env.get(ENV_USAGE_FLUSH_INTERVAL_MS).isBlank()
                ? ENV_USAGE_FLUSH_INTERVAL_MS : "usage.flushIntervalMs";
        long usageFlushMs = parseLong(pick(env, ENV_USAGE_FLUSH_INTERVAL_MS, file.get("usage.flushIntervalMs"),
                String.valueOf(SluiceConfig.Observability.DEFAULT_USAGE_FLUSH_INTERVAL_MS)), flushName);
        if (usageFlushMs < SluiceConfig.Observability.MIN_USAGE_FLUSH_INTERVAL_MS
                || usageFlushMs > SluiceConfig.Observability.MAX_USAGE_FLUSH_INTERVAL_MS) {
            throw new IllegalArgumentException(flushName + " must be " + SluiceConfig.Observability.MIN_USAGE_FLUSH_INTERVAL_MS + "–"
                    + SluiceConfig.Observability.MAX_USAGE_FLUSH_INTERVAL_MS + " ms (how much usage a crash can lose), got " + usageFlushMs);
        }
        return new SluiceConfig(host, port, dataDir, pluginsDir, strict, adminKey, secretKey, maxBody, connect, headers,
                pluginSettings, resilienceTree, ResilienceEnvironment.select(env), egressProbeUrl, egressLockProviders, emergencyFallback,
                aliases, affinityTtl, new SluiceConfig.Observability(metricsPublic, accessLog, proxyLogSuccessSample(env, file),
                        Duration.ofMillis(usageFlushMs)),
                positiveMillis(file, "server.idleConnectionTimeoutMs", SluiceConfig.DEFAULT_IDLE_CONNECTION_TIMEOUT),
                upstreamLimits(file), database(env, file), redis(env, file), clientLimits(env, file), modelDiscoveryInterval(env, file),
                catalog(file));
    }

    /**
     * Issue 34: the {@code models:} section ({@code provider/model} to figure to value; the figures
     * are checked when the server starts) and {@code combos.autoCombos}.
     */
    private static SluiceConfig.CatalogSettings catalog(Config file) {
        Map<String, Map<String, String>> models = new LinkedHashMap<>();
        Config section = file.get("models");
        if (section.exists()) {
            // Helidon splits keys at dots ("openai/gpt-4.1" becomes openai/gpt-4 > 1): the last name is the figure,
            // the names above it (below the section) are the model id
            section.detach().traverse().filter(Config::isLeaf).forEach(leaf -> leaf.asString().ifPresent(value -> {
                List<String> names = new ArrayList<>();
                for (Config.Key key = leaf.key(); !key.isRoot(); key = key.parent()) {
                    names.addFirst(key.name());
                }
                if (names.size() < 2) {
                    throw new IllegalArgumentException("models." + String.join(".", names) + " must be an object of figures"
                            + " (contextWindow, maxOutputTokens, inputPerMillion, outputPerMillion, cachedInputPerMillion, tier)");
                }
                String figure = names.removeLast();
                models.computeIfAbsent(String.join(".", names), k -> new LinkedHashMap<>()).put(figure, value);
            }));
        }
        boolean auto = parseBoolean(file.get("combos.autoCombos").asString().orElse("true"), "combos.autoCombos");
        return new SluiceConfig.CatalogSettings(models, auto);
    }

    /** {@code SLUICE_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS}, else {@code upstream.modelDiscoveryIntervalMs}: 0 (off) or more ms. */
    private static Duration modelDiscoveryInterval(Map<String, String> env, Config file) {
        String envName = ENV_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS;
        String name = env.get(envName) != null && !env.get(envName).isBlank() ? envName : "upstream.modelDiscoveryIntervalMs";
        long ms = parseLong(pick(env, envName, file.get("upstream.modelDiscoveryIntervalMs"),
                String.valueOf(SluiceConfig.DEFAULT_MODEL_DISCOVERY_INTERVAL.toMillis())), name);
        if (ms < 0) {
            throw new IllegalArgumentException(name + " must be 0 (off) or a positive number of milliseconds, got " + ms);
        }
        return Duration.ofMillis(ms);
    }

    /** {@code SLUICE_FIRST_BYTE_TIMEOUT_MS|REQUEST_HEAD_TIMEOUT_MS|MAX_CONNECTIONS|SHUTDOWN_GRACE_MS}, else {@code server.…} of the file. */
    private static ClientLimits clientLimits(Map<String, String> env, Config file) {
        ClientLimits defaults = ClientLimits.defaults();
        Duration firstByte = positiveMillis(env, ENV_FIRST_BYTE_TIMEOUT_MS, file, "server.firstByteTimeoutMs", defaults.firstByteTimeout());
        Duration head = positiveMillis(env, ENV_REQUEST_HEAD_TIMEOUT_MS, file, "server.requestHeadTimeoutMs", defaults.requestHeadTimeout());
        String maxName = env.get(ENV_MAX_CONNECTIONS) != null && !env.get(ENV_MAX_CONNECTIONS).isBlank() ? ENV_MAX_CONNECTIONS : "server.maxConnections";
        int max = parseInt(pick(env, ENV_MAX_CONNECTIONS, file.get("server.maxConnections"), String.valueOf(defaults.maxConnections())), maxName);
        if (max < 1 || max > ClientLimits.MAX_MAX_CONNECTIONS) {
            throw new IllegalArgumentException(maxName + " must be 1–" + ClientLimits.MAX_MAX_CONNECTIONS + ", got " + max);
        }
        String graceName = env.get(ENV_SHUTDOWN_GRACE_MS) != null && !env.get(ENV_SHUTDOWN_GRACE_MS).isBlank() ? ENV_SHUTDOWN_GRACE_MS
                : "server.shutdownGraceMs";
        long grace = parseLong(pick(env, ENV_SHUTDOWN_GRACE_MS, file.get("server.shutdownGraceMs"),
                String.valueOf(defaults.shutdownGrace().toMillis())), graceName);
        if (grace < 0 || grace > ClientLimits.MAX_SHUTDOWN_GRACE.toMillis()) {
            throw new IllegalArgumentException(graceName + " must be 0–" + ClientLimits.MAX_SHUTDOWN_GRACE.toMillis() + " ms, got " + grace);
        }
        return new ClientLimits(firstByte, head, max, Duration.ofMillis(grace));
    }

    /** A positive number of milliseconds from the environment variable, else the file, else the default. */
    private static Duration positiveMillis(Map<String, String> env, String envName, Config file, String key, Duration defaultValue) {
        String name = env.get(envName) != null && !env.get(envName).isBlank() ? envName : key;
        long ms = parseLong(pick(env, envName, file.get(key), String.valueOf(defaultValue.toMillis())), name);
        if (ms < 1) {
            throw new IllegalArgumentException(name + " must be a positive number of milliseconds, got " + ms);
        }
        return Duration.ofMillis(ms);
    }

    /** {@code SLUICE_DATABASE_URL|USER|PASSWORD}, else {@code database.url|user|password} of the file. */
    private static DatabaseSettings database(Map<String, String> env, Config file) {
        String url = blankToNull(pick(env, ENV_DATABASE_URL, file.get("database.url"), null));
        String user = blankToNull(pick(env, ENV_DATABASE_USER, file.get("database.user"), null));
        String password = env.get(ENV_DATABASE_PASSWORD) != null && !env.get(ENV_DATABASE_PASSWORD).isEmpty()
                ? env.get(ENV_DATABASE_PASSWORD) : file.get("database.password").asString().orElse(null);
        String name = env.get(ENV_DATABASE_URL) != null && !env.get(ENV_DATABASE_URL).isBlank() ? ENV_DATABASE_URL : "database.url";
        return DatabaseSettings.of(url, user, password == null || password.isEmpty() ? null : password, name);
    }

    /** {@code SLUICE_REDIS_URL} / {@code SLUICE_REDIS_PERMIT_TTL_MS}, else {@code redis.url} / {@code redis.permitTtlMs} of the file. */
    private static RedisSettings redis(Map<String, String> env, Config file) {
        String url = blankToNull(pick(env, ENV_REDIS_URL, file.get("redis.url"), null));
        String ttlName = env.get(ENV_REDIS_PERMIT_TTL_MS) != null ? ENV_REDIS_PERMIT_TTL_MS : "redis.permitTtlMs";
        String ttl = blankToNull(pick(env, ENV_REDIS_PERMIT_TTL_MS, file.get("redis.permitTtlMs"), null));
        if (url == null && ttl != null) {
            throw new IllegalArgumentException(ttlName + " is set but SLUICE_REDIS_URL (redis.url) is not: it bounds shared permits only");
        }
        String name = env.get(ENV_REDIS_URL) != null && !env.get(ENV_REDIS_URL).isBlank() ? ENV_REDIS_URL : "redis.url";
        return RedisSettings.of(url, ttl == null ? null : parseLong(ttl, ttlName), name);
    }

    /** {@code SLUICE_PROXY_LOG_SUCCESS_SAMPLE}, else {@code logging.proxyLogSuccessSample}: a fraction 0–1. */
    private static double proxyLogSuccessSample(Map<String, String> env, Config file) {
        String name = env.get(ENV_PROXY_LOG_SUCCESS_SAMPLE) != null && !env.get(ENV_PROXY_LOG_SUCCESS_SAMPLE).isBlank()
                ? ENV_PROXY_LOG_SUCCESS_SAMPLE : "logging.proxyLogSuccessSample";
        String v = pick(env, ENV_PROXY_LOG_SUCCESS_SAMPLE, file.get("logging.proxyLogSuccessSample"),
                String.valueOf(SluiceConfig.Observability.DEFAULT_PROXY_LOG_SUCCESS_SAMPLE));
        double d;
        try {
            d = Double.parseDouble(v.strip());
        } catch (NumberFormatException e) {
            d = Double.NaN;
        }
        if (!(d >= 0 && d <= 1)) {
            throw new IllegalArgumentException(name + " must be a fraction 0–1 (0.01 = 1 % of successful attempts), got " + v);
        }
        return d;
    }

    /** {@code stdout}, {@code off}, or a file path (relative to the installation folder); unset = the data folder's file. */
    private static String accessLog(Path home, Path dataDir, String value) {
        if (value == null) {
            return SluiceConfig.Observability.defaults(dataDir).accessLog();
        }
        String v = value.strip();
        if (v.equalsIgnoreCase(SluiceConfig.Observability.STDOUT) || v.equalsIgnoreCase(SluiceConfig.Observability.OFF)) {
            return v.toLowerCase(java.util.Locale.ROOT);
        }
        return home.resolve(v).toAbsolutePath().toString();
    }

    /**
     * The configuration file {@link #load} reads: {@code SLUICE_CONFIG} when set, else
     * {@code conf/sluice.yaml} of the installation folder. It need not exist. Public so that
     * {@code bin/sluice doctor} names the same file the server reads.
     *
     * @param home the installation folder
     * @param env the environment
     * @return the path
     */
    public static Path configFile(Path home, Map<String, String> env) {
        String configEnv = env.get(ENV_CONFIG);
        return configEnv != null && !configEnv.isBlank() ? Path.of(configEnv.strip()) : home.resolve("conf").resolve("sluice.yaml");
    }

    /** A config subtree as nested maps, lists and text values (Helidon reads every YAML scalar as text). */
    private static Map<String, Object> asMap(Config node) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Config child : node.asNodeList().orElse(List.of())) {
            Object value = asValue(child);
            if (value != null) {
                out.put(child.name(), value);
            }
        }
        return out;
    }

    private static Object asValue(Config node) {
        return switch (node.type()) {
            case OBJECT -> asMap(node);
            case LIST -> {
                List<Object> out = new ArrayList<>();
                for (Config element : node.asNodeList().orElse(List.of())) {
                    Object value = asValue(element);
                    if (value != null) {
                        out.add(value);
                    }
                }
                yield out;
            }
            case VALUE -> node.asString().orElse("");
            case MISSING -> null;
        };
    }

    private static String pick(Map<String, String> env, String envName, Config fileValue, String defaultValue) {
        String fromEnv = env.get(envName);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.strip();
        }
        return fileValue.asString().orElse(defaultValue);
    }

    private static boolean parseBoolean(String value, String name) {
        return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1", "yes", "on" -> true;
            case "false", "0", "no", "off", "" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false, got '" + value + "'");
        };
    }

    private static Duration positiveMillis(Config file, String key, Duration defaultValue) {
        long ms = parseLong(file.get(key).asString().orElse(String.valueOf(defaultValue.toMillis())), key);
        if (ms < 1) {
            throw new IllegalArgumentException(key + " must be a positive number of milliseconds, got " + ms);
        }
        return Duration.ofMillis(ms);
    }

    /** An optional absolute http(s) URL; null when absent or blank. */
    private static URI httpUrl(Config file, String key) {
        String value = blankToNull(file.get(key).asString().orElse(null));
        if (value == null) {
            return null;
        }
        try {
            URI u = new URI(value.strip());
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(java.util.Locale.ROOT);
            if ((scheme.equals("http") || scheme.equals("https")) && u.getHost() != null) {
                return u;
            }
        } catch (URISyntaxException e) {
            // reported below
        }
        throw new IllegalArgumentException(key + " must be an absolute http or https URL, got '" + value + "'");
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static int parseInt(String value, String name) {
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, got '" + value + "'");
        }
    }

    private static long parseLong(String value, String name) {
        try {
            return Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, got '" + value + "'");
        }
    }
}
