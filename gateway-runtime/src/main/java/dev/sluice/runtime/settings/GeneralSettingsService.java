package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.runtime.store.SettingsStore;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * The settings of {@code GET/PATCH /api/settings} (SPEC §3, §18) that are not resilience
 * settings. Today: {@code providerErrorRules} (ER-5), the operators' provider error rules, applied
 * to the next classified failure without restart. A PATCH replaces the keys it names (arrays are
 * replaced whole, {@code null} empties one); an unknown key is a 400 naming it. Stored in the
 * {@code settings} table under {@value #STORE_KEY}.
 */
public final class GeneralSettingsService {

    /** The settings-table key. */
    public static final String STORE_KEY = "settings";
    /** The key of the operators' error rules. */
    public static final String PROVIDER_ERROR_RULES = "providerErrorRules";

    private static final System.Logger LOG = System.getLogger(GeneralSettingsService.class.getName());
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final SettingsStore store;
    private final Object writeLock = new Object();
    private volatile List<ErrorRule> errorRules;

    /**
     * Loads the stored settings; an unreadable stored value is ignored with a warning.
     *
     * @param store the settings table
     */
    public GeneralSettingsService(SettingsStore store) {
        this.store = store;
        List<ErrorRule> rules = List.of();
        String stored = store.get(STORE_KEY).orElse(null);
        if (stored != null) {
            try {
                rules = OperatorErrorRules.read(MAPPER.readTree(stored).get(PROVIDER_ERROR_RULES), PROVIDER_ERROR_RULES);
            } catch (IOException | SettingsException e) {
                LOG.log(System.Logger.Level.WARNING, "stored settings ignored (" + e.getMessage() + ")");
            }
        }
        this.errorRules = rules;
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
            if (!PROVIDER_ERROR_RULES.equals(e.getKey())) {
                throw new SettingsException(e.getKey(), "'" + e.getKey() + "' is not a setting here (known: " + PROVIDER_ERROR_RULES
                        + "; resilience settings are under /api/resilience).");
            }
        }
        synchronized (writeLock) {
            List<ErrorRule> rules = body.has(PROVIDER_ERROR_RULES)
                    ? OperatorErrorRules.read(body.get(PROVIDER_ERROR_RULES), PROVIDER_ERROR_RULES) : errorRules;
            ObjectNode stored = MAPPER.createObjectNode();
            stored.set(PROVIDER_ERROR_RULES, OperatorErrorRules.write(rules));
            store.put(STORE_KEY, stored.toString());
            errorRules = rules;
            return tree();
        }
    }
}
