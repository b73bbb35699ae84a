package dev.sluice.runtime.store;

import java.util.Optional;

/** Key/value settings, values as JSON text. */
public interface SettingsStore {

    /**
     * A setting.
     *
     * @param key the key
     * @return its JSON value, or empty
     */
    Optional<String> get(String key);

    /**
     * Stores a setting durably.
     *
     * @param key the key
     * @param json the JSON value
     */
    void put(String key, String json);
}
