package dev.sluice.runtime.telemetry;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeps label values few. Providers come from the catalog (ids the operator installed) and models
 * from routes that reached a connection ({@link RequestRecord#routed}: what was sent upstream, never
 * a name refused before sending, issue 29), but a provider that accepts
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
        if (!plausible(model)) {
            // a name an executor refused before sending ("../../x", "x?alt=evil") is a client's raw string
            return OTHER;
        }
        synchronized (models) {
            if (models.size() < MAX_MODELS) {
                models.add(key);
                return model;
            }
        }
        return OTHER;
    }

    /**
     * Whether a model name looks like one a provider serves: letters, digits and {@code . _ - : @ + /},
     * no {@code ..}, at most 128 characters. Asked only for names that have no series yet.
     */
    static boolean plausible(String model) {
        if (model.isEmpty() || model.length() > 128 || model.contains("..")) {
            return false;
        }
        for (int i = 0; i < model.length(); i++) {
            char c = model.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-' || c == ':' || c == '@' || c == '+' || c == '/';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    static String provider(String provider) {
        return provider == null ? NONE : provider;
    }
}
