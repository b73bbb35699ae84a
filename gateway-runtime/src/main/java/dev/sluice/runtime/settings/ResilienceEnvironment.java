package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment variables that override resilience settings (SE-2: above
 * {@code conf/sluice.yaml}, below persisted operator patches). {@link #OVERRIDES} is the one table
 * the documentation lists. Booleans accept {@code true/1/on/yes} and {@code false/0/off/no}; a
 * blank variable is ignored; a bad or out-of-bounds value is ignored or clamped with a warning.
 */
public final class ResilienceEnvironment {

    /**
     * One variable.
     *
     * @param variable the variable's name
     * @param path the dotted path of the setting it overrides
     */
    public record EnvOverride(String variable, String path) {
    }

    /** Every variable, in documentation order. */
    public static final List<EnvOverride> OVERRIDES = List.of(
            // §6 CB-2: OmniRoute's OMNIROUTE_CIRCUIT_BREAKER_* names
            new EnvOverride("SLUICE_CIRCUIT_BREAKER_OAUTH_THRESHOLD", "circuitBreaker.oauth.failureThreshold"),
            new EnvOverride("SLUICE_CIRCUIT_BREAKER_OAUTH_RESET_MS", "circuitBreaker.oauth.resetTimeoutMs"),
            new EnvOverride("SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD", "circuitBreaker.apikey.failureThreshold"),
            new EnvOverride("SLUICE_CIRCUIT_BREAKER_API_KEY_RESET_MS", "circuitBreaker.apikey.resetTimeoutMs"),
            new EnvOverride("SLUICE_CIRCUIT_BREAKER_LOCAL_THRESHOLD", "circuitBreaker.local.failureThreshold"),
            new EnvOverride("SLUICE_CIRCUIT_BREAKER_LOCAL_RESET_MS", "circuitBreaker.local.resetTimeoutMs"),
            // §7 PC-1, PC-3
            new EnvOverride("SLUICE_PROVIDER_COOLDOWN_ENABLED", "providerCooldown.enabled"),
            new EnvOverride("SLUICE_PROVIDER_COOLDOWN_MIN_MS", "providerCooldown.minRetryCooldownMs"),
            new EnvOverride("SLUICE_PROVIDER_COOLDOWN_MAX_MS", "providerCooldown.maxRetryCooldownMs"),
            // §7 PC-4
            new EnvOverride("SLUICE_PROVIDER_BREAKER_OAUTH_FAILURE_THRESHOLD", "providerCooldown.oauth.failureThreshold"),
            new EnvOverride("SLUICE_PROVIDER_BREAKER_OAUTH_FAILURE_WINDOW_MS", "providerCooldown.oauth.failureWindowMs"),
            new EnvOverride("SLUICE_PROVIDER_BREAKER_OAUTH_COOLDOWN_MS", "providerCooldown.oauth.cooldownMs"),
            new EnvOverride("SLUICE_PROVIDER_BREAKER_API_KEY_FAILURE_THRESHOLD", "providerCooldown.apikey.failureThreshold"),
            new EnvOverride("SLUICE_PROVIDER_BREAKER_API_KEY_FAILURE_WINDOW_MS", "providerCooldown.apikey.failureWindowMs"),
            new EnvOverride("SLUICE_PROVIDER_BREAKER_API_KEY_COOLDOWN_MS", "providerCooldown.apikey.cooldownMs"),
            // §11 ML-2
            new EnvOverride("SLUICE_MODEL_LOCKOUT_ENABLED", "modelLockout.enabled"),
            // issue 32: whether an upstream 503 cools the connection
            new EnvOverride("SLUICE_SERVICE_UNAVAILABLE_COOLDOWN_ENABLED", "serviceUnavailableCooldown.enabled"),
            // §14 RQ-3, RQ-5 (the names OmniRoute operators already use)
            new EnvOverride("RATE_LIMIT_MAX_WAIT_MS", "requestQueue.maxWaitMs"),
            new EnvOverride("RATE_LIMIT_EXECUTION_MAX_WAIT_MS", "requestQueue.executionMaxWaitMs"),
            new EnvOverride("RATE_LIMIT_MAX_QUEUE_DEPTH", "requestQueue.maxQueueDepth"),
            // §15 ST-0, ST-2 (SSE_HEARTBEAT_INTERVAL_MS is the name OmniRoute operators already use)
            new EnvOverride("STREAM_READINESS_TIMEOUT_MS", "streamRecovery.readinessTimeoutMs"),
            new EnvOverride("STREAM_IDLE_TIMEOUT_MS", "streamRecovery.idleTimeoutMs"),
            new EnvOverride("SSE_HEARTBEAT_INTERVAL_MS", "streamRecovery.keepAliveIntervalMs"),
            new EnvOverride("STREAM_ATTEMPT_DEADLINE_MS", "streamRecovery.attemptDeadlineMs"),
            new EnvOverride("STREAM_THROUGHPUT_WATCHDOG_ENABLED", "streamRecovery.throughputWatchdog.enabled"));

    /**
     * RQ-7: {@code RATE_LIMIT_AUTO_ENABLE} beats the stored {@code requestQueue.autoEnableApiKeyProviders}
     * (the one exception to SE-2), so it is not a layer of the tree: the admission policy reads it.
     */
    public static final String AUTO_ENABLE = "RATE_LIMIT_AUTO_ENABLE";

    private ResilienceEnvironment() {
    }

    /**
     * The variables of {@link #OVERRIDES} that are set in an environment (blank ones included:
     * they are ignored later, where it is visible).
     *
     * @param env the environment
     * @return those variables and their values, in table order
     */
    public static Map<String, String> select(Map<String, String> env) {
        Map<String, String> out = new LinkedHashMap<>();
        for (EnvOverride o : OVERRIDES) {
            String v = env.get(o.variable());
            if (v != null) {
                out.put(o.variable(), v);
            }
        }
        if (env.get(AUTO_ENABLE) != null) {
            out.put(AUTO_ENABLE, env.get(AUTO_ENABLE));
        }
        return out;
    }

    /**
     * The environment as a layer of the tree: the text of every non-blank variable at its path.
     *
     * @param env the environment
     * @return the layer
     */
    static ObjectNode layer(Map<String, String> env) {
        ObjectNode root = Schema.NODES.objectNode();
        for (EnvOverride o : OVERRIDES) {
            String v = env.get(o.variable());
            if (v == null || v.isBlank()) {
                continue;
            }
            String[] parts = o.path().split("\\.");
            ObjectNode at = root;
            for (int i = 0; i < parts.length - 1; i++) {
                JsonNode next = at.get(parts[i]);
                at = next instanceof ObjectNode n ? n : at.putObject(parts[i]);
            }
            at.put(parts[parts.length - 1], v.strip());
        }
        return root;
    }

    /**
     * How a warning names a setting of this layer.
     *
     * @param path the dotted path
     * @return the variable and the path, e.g. {@code environment variable SLUICE_MODEL_LOCKOUT_ENABLED (modelLockout.enabled)}
     */
    static String name(String path) {
        for (EnvOverride o : OVERRIDES) {
            if (o.path().equals(path)) {
                return "environment variable " + o.variable() + " (" + path + ")";
            }
        }
        return "environment setting " + path;
    }
}
