package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.runtime.store.SettingsStore;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The settings of {@code GET/PATCH /api/settings} (SPEC §3, §18) that are not resilience
 * settings: {@code providerErrorRules} (ER-5), the operators' provider error rules,
 * {@code modelAliases} (API-1), the operators' model aliases, and the feature
 * flag {@code featureFlags.emergencyFallback} (OF-3; also accepted as a top-level
 * {@code emergencyFallback}), both applied without restart. A PATCH replaces the keys it names (arrays are
 * replaced whole, {@code null} empties one); an unknown key is a 400 naming it. Stored in the
 * {@code settings} table under {@value #STORE_KEY}.
 */
public final class GeneralSettingsService {

    /** The settings-table key. */
    public static final String STORE_KEY = "settings";
    /** The key of the operators' error rules. */
    public static final String PROVIDER_ERROR_RULES = "providerErrorRules";
    /** The key of the feature flags. */
    public static final String FEATURE_FLAGS = "featureFlags";
    /** The feature flag (and top-level alias) of the emergency fallback target (OF-3). */
    public static final String EMERGENCY_FALLBACK = "emergencyFallback";
    /** Key of the operators' model aliases (SPEC API-1). */
    public static final String MODEL_ALIASES = "modelAliases";
    /** Key of how long a session stays pinned (SPEC SA-2), ms; 0 = off. */
    public static final String SESSION_AFFINITY_TTL_MS = "sessionAffinityTtlMs";
    /** Key of the operators' per-model prices, USD per million tokens (usage cost). */
    public static final String MODEL_PRICES = "modelPrices";
    /** The longest session affinity TTL: one day. */
    public static final long MAX_SESSION_AFFINITY_TTL_MS = 86_400_000L;

    private static final System.Logger LOG = System.getLogger(GeneralSettingsService.class.getName());
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final SettingsStore store;
    private final String emergencyFallbackFromEnv;
    private final Object writeLock = new Object();
    private volatile List<ErrorRule> errorRules;
    /** The operator's run-time override of the emergency fallback, or null (then the environment's applies). */
    private volatile String emergencyFallback;
    private volatile ModelAliases aliases = ModelAliases.NONE;
    /** The config file's aliases ({@code routing.modelAliases}): in force until a PATCH sets others. */
    private final ModelAliases configuredAliases;
    /** Whether the operator set aliases at run time (persisted); null = the config file's apply. */
    private volatile boolean aliasesPatched;
    /** The configured (environment or file) session affinity TTL. */
    private final long configuredAffinityTtlMs;
    /** The operator's run-time session affinity TTL, or null (then the configured one applies). */
    private volatile Long affinityTtlMs;
    private volatile ModelPrices prices = ModelPrices.NONE;

    /**
     * Loads the stored settings over the configured ones.
     *
     * @param store the settings table
     * @param emergencyFallbackFromEnv {@code SLUICE_EMERGENCY_FALLBACK}, or null
     * @param configuredAliases {@code routing.modelAliases} of the config file (empty: none); invalid ones are ignored
     *     with a warning
     * @param configuredAffinityTtlMs {@code SLUICE_SESSION_AFFINITY_TTL_MS} / {@code routing.sessionAffinityTtlMs}, or 0
     */
    public GeneralSettingsService(SettingsStore store, String emergencyFallbackFromEnv, java.util.Map<String, String> configuredAliases,
            long configuredAffinityTtlMs) {
        this.configuredAffinityTtlMs = configuredAffinityTtlMs;
        ModelAliases fromFile = ModelAliases.NONE;
        try {
            fromFile = ModelAliases.read(MAPPER.valueToTree(configuredAliases), "routing.modelAliases");
        } catch (SettingsException e) {
            LOG.log(System.Logger.Level.WARNING, "config file routing.modelAliases ignored (" + e.getMessage() + ")");
        }
        this.configuredAliases = fromFile;
        this.aliases = fromFile;
        this.store = store;
        this.emergencyFallbackFromEnv = emergencyFallbackFromEnv == null || emergencyFallbackFromEnv.isBlank() ? null
                : emergencyFallbackFromEnv.strip();
        reload();
    }

    /**
     * Reads the stored settings (at start, and when another instance sharing the database changed
     * them); an unreadable stored value is ignored with a warning, and what is not stored falls back
     * to the configured value.
     */
    public void reload() {
        synchronized (writeLock) {
            List<ErrorRule> rules = List.of();
            String fallback = null;
            Long ttl = null;
            ModelPrices storedPrices = ModelPrices.NONE;
            ModelAliases storedAliases = configuredAliases;
            boolean patched = false;
            String stored = store.get(STORE_KEY).orElse(null);
            if (stored != null) {
                try {
                    JsonNode tree = MAPPER.readTree(stored);
                    rules = OperatorErrorRules.read(tree.get(PROVIDER_ERROR_RULES), PROVIDER_ERROR_RULES);
                    fallback = model(tree.path(FEATURE_FLAGS).get(EMERGENCY_FALLBACK), FEATURE_FLAGS + "." + EMERGENCY_FALLBACK);
                    JsonNode storedTtl = tree.get(SESSION_AFFINITY_TTL_MS);
                    ttl = storedTtl != null && !storedTtl.isNull() ? ttl(storedTtl) : null;
                    storedPrices = ModelPrices.read(tree.get(MODEL_PRICES), MODEL_PRICES);
                    JsonNode aliasNode = tree.get(MODEL_ALIASES);
                    if (aliasNode != null && !aliasNode.isNull()) {
                        storedAliases = ModelAliases.read(aliasNode, MODEL_ALIASES);
                        patched = true;
                    }
                } catch (IOException | SettingsException e) {
                    LOG.log(System.Logger.Level.WARNING, "stored settings ignored (" + e.getMessage() + ")");
                    rules = List.of();
                    fallback = null;
                    ttl = null;
                    storedPrices = ModelPrices.NONE;
                    storedAliases = configuredAliases;
                    patched = false;
                }
            }
            this.errorRules = rules;
            this.emergencyFallback = fallback;
            this.affinityTtlMs = ttl;
            this.prices = storedPrices;
            this.aliases = storedAliases;
            this.aliasesPatched = patched;
        }
    }

    /**
     * OF-3: the last-resort target tried when every target of a combo failed — the operator's
     * run-time setting, else {@code SLUICE_EMERGENCY_FALLBACK}.
     *
     * @return the model ({@code provider/model}), or null
     */
    public String emergencyFallback() {
        String v = emergencyFallback;
        if (v == null) {
            return emergencyFallbackFromEnv;
        }
        return v.isEmpty() ? null : v;
    }

    /** A model name; {@code ""} turns the fallback off (even one set by the environment); null follows the environment. */
    private static String model(JsonNode n, String path) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw new SettingsException(path, "'" + path + "' must be a model name (provider/model), \"\" to turn it off, or null to"
                    + " use SLUICE_EMERGENCY_FALLBACK.");
        }
        return n.asText().strip();
    }

    /**
     * SA-2: how long a session stays pinned after its last request, ms; 0 = affinity off. The
     * operator's run-time setting, else the environment's or config file's.
     *
     * @return the TTL
     */
    public long sessionAffinityTtlMs() {
        Long v = affinityTtlMs;
        return v != null ? v : configuredAffinityTtlMs;
    }

    private static long ttl(JsonNode n) {
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0 || n.asLong() > MAX_SESSION_AFFINITY_TTL_MS) {
            throw new SettingsException(SESSION_AFFINITY_TTL_MS, "'" + SESSION_AFFINITY_TTL_MS + "' must be a whole number of"
                    + " milliseconds from 0 (off) to " + MAX_SESSION_AFFINITY_TTL_MS + ", or null for the configured value.");
        }
        return n.asLong();
    }

    /**
     * The operators' model aliases (SPEC API-1), read per request.
     *
     * @return the aliases
     */
    public ModelAliases modelAliases() {
        return aliases;
    }

    /**
     * The operators' per-model prices (usage cost), read per {@code GET /api/usage}.
     *
     * @return the prices
     */
    public ModelPrices modelPrices() {
        return prices;
    }

    /**
     * The operators' provider error rules; the same list instance until a PATCH changes it.
     *
     * @return the rules
     */
    public List<ErrorRule> providerErrorRules() {
        return errorRules;
    }

    /**
     * The settings as JSON.
     *
     * @return the tree
     */
    public ObjectNode tree() {
        ObjectNode root = MAPPER.createObjectNode();
        root.set(PROVIDER_ERROR_RULES, OperatorErrorRules.write(errorRules));
        root.set(MODEL_ALIASES, aliases.write());
        root.put(SESSION_AFFINITY_TTL_MS, sessionAffinityTtlMs());
        root.set(MODEL_PRICES, prices.write());
        ObjectNode flags = root.putObject(FEATURE_FLAGS);
        String fallback = emergencyFallback();
        if (fallback == null) {
            flags.putNull(EMERGENCY_FALLBACK);
        } else {
            flags.put(EMERGENCY_FALLBACK, fallback);
        }
        return root;
    }

    /**
     * Applies a PATCH body: validated as a whole, stored, then in force; nothing changes on error.
     *
     * @param body a JSON object
     * @return the new tree
     */
    public ObjectNode patch(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new SettingsException(null, "The body must be a JSON object of settings.");
        }
        for (Map.Entry<String, JsonNode> e : body.properties()) {
            if (!Set.of(PROVIDER_ERROR_RULES, FEATURE_FLAGS, EMERGENCY_FALLBACK, MODEL_ALIASES, SESSION_AFFINITY_TTL_MS, MODEL_PRICES)
                    .contains(e.getKey())) {
                throw new SettingsException(e.getKey(), "'" + e.getKey() + "' is not a setting here (known: " + PROVIDER_ERROR_RULES
                        + ", " + MODEL_ALIASES + ", " + SESSION_AFFINITY_TTL_MS + ", " + MODEL_PRICES + ", " + FEATURE_FLAGS + "." + EMERGENCY_FALLBACK
                        + "; resilience settings are under /api/resilience).");
            }
        }
        JsonNode flags = body.get(FEATURE_FLAGS);
        if (flags != null && !flags.isNull()) {
            if (!flags.isObject()) {
                throw new SettingsException(FEATURE_FLAGS, "'" + FEATURE_FLAGS + "' must be an object.");
            }
            for (Map.Entry<String, JsonNode> e : flags.properties()) {
                if (!EMERGENCY_FALLBACK.equals(e.getKey())) {
                    throw new SettingsException(FEATURE_FLAGS + "." + e.getKey(), "'" + FEATURE_FLAGS + "." + e.getKey()
                            + "' is not a feature flag (known: " + EMERGENCY_FALLBACK + ").");
                }
            }
        }
        synchronized (writeLock) {
            List<ErrorRule> rules = body.has(PROVIDER_ERROR_RULES)
                    ? OperatorErrorRules.read(body.get(PROVIDER_ERROR_RULES), PROVIDER_ERROR_RULES) : errorRules;
            // null hands the aliases back to the config file's routing.modelAliases
            boolean patched = body.has(MODEL_ALIASES) ? !body.get(MODEL_ALIASES).isNull() : aliasesPatched;
            ModelAliases newAliases = !body.has(MODEL_ALIASES) ? aliases
                    : patched ? ModelAliases.read(body.get(MODEL_ALIASES), MODEL_ALIASES) : configuredAliases;
            Long newTtl = !body.has(SESSION_AFFINITY_TTL_MS) ? affinityTtlMs
                    : body.get(SESSION_AFFINITY_TTL_MS).isNull() ? null : ttl(body.get(SESSION_AFFINITY_TTL_MS));
            ModelPrices newPrices = body.has(MODEL_PRICES) ? ModelPrices.read(body.get(MODEL_PRICES), MODEL_PRICES) : prices;
            String fallback = emergencyFallback;
            if (flags != null && flags.has(EMERGENCY_FALLBACK)) {
                fallback = model(flags.get(EMERGENCY_FALLBACK), FEATURE_FLAGS + "." + EMERGENCY_FALLBACK);
            } else if (body.has(EMERGENCY_FALLBACK)) {
                fallback = model(body.get(EMERGENCY_FALLBACK), EMERGENCY_FALLBACK);
            }
            ObjectNode stored = MAPPER.createObjectNode();
            stored.set(PROVIDER_ERROR_RULES, OperatorErrorRules.write(rules));
            if (patched) {
                stored.set(MODEL_ALIASES, newAliases.write());
            } else {
                stored.putNull(MODEL_ALIASES);
            }
            if (newTtl == null) {
                stored.putNull(SESSION_AFFINITY_TTL_MS);
            } else {
                stored.put(SESSION_AFFINITY_TTL_MS, newTtl);
            }
            stored.set(MODEL_PRICES, newPrices.write());
            ObjectNode storedFlags = stored.putObject(FEATURE_FLAGS);
            if (fallback == null) {
                storedFlags.putNull(EMERGENCY_FALLBACK);
            } else {
                storedFlags.put(EMERGENCY_FALLBACK, fallback);
            }
            store.put(STORE_KEY, stored.toString());
            errorRules = rules;
            aliases = newAliases;
            aliasesPatched = patched;
            affinityTtlMs = newTtl;
            prices = newPrices;
            emergencyFallback = fallback;
            return tree();
        }
    }
}
