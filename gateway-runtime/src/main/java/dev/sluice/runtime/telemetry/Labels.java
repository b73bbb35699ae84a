package dev.sluice.runtime.telemetry;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps label values few. Providers come from the catalog (ids the operator installed) and models
 * from routes (what was sent upstream, never the client's raw string), but a provider that accepts
 * any model name would still let clients mint series: the first {@value #MAX_MODELS} distinct
 * {@code provider/model} pairs keep their name, later ones are counted as {@value #OTHER}.
 */
final class Labels {

    /** Distinct {@code provider/model} pairs that get a series of their own. */
    static final int MAX_MODELS = 200;
    /** The label value of everything past the cap. */
    static final String OTHER = "other";
    /** The label value when nothing was routed. */
    static final String NONE = "none";

    private final Set<String> models = ConcurrentHashMap.newKeySet();

    /** @return the model's label value */
    String model(String provider, String model) {
        if (provider == null || model == null) {
            return NONE;
        }
        String key = provider + "/" + model;
        if (models.contains(key)) {
            return model;
        }
        synchronized (models) {
            if (models.size() < MAX_MODELS) {
                models.add(key);
                return model;
            }
        }
        return OTHER;
    }

    static String provider(String provider) {
        return provider == null ? NONE : provider;
    }
}
