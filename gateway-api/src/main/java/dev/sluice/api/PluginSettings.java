package dev.sluice.api;

import java.util.Optional;
import java.util.Set;

/** A read-only view of one plugin's settings (strings, as written in the configuration). */
public interface PluginSettings {

    /**
     * A setting's value.
     *
     * @param key setting key, relative to the plugin's section
     * @return the value, or empty when unset
     */
    Optional<String> get(String key);

    /**
     * Every key set for this plugin.
     *
     * @return the keys
     */
    Set<String> keys();

    /**
     * A setting's value or a default.
     *
     * @param key setting key
     * @param defaultValue value when unset
     * @return the value
     */
    default String get(String key, String defaultValue) {
        return get(key).orElse(defaultValue);
    }
}
