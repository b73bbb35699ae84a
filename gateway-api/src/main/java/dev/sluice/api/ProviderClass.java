package dev.sluice.api;

import java.util.Locale;

/**
 * The class of a provider connection (SPEC DM-2); it selects resilience defaults. The wire name
 * is the connection's {@code authType}.
 */
public enum ProviderClass {
    /** An OAuth subscription account. */
    OAUTH("oauth"),
    /** An API key. */
    APIKEY("apikey"),
    /** A local server (Ollama, LM Studio); declared, never guessed from the address. */
    LOCAL("local");

    private final String wireName;

    ProviderClass(String wireName) {
        this.wireName = wireName;
    }

    /**
     * The name used in JSON and in the database ({@code oauth}, {@code apikey}, {@code local}).
     *
     * @return the wire name
     */
    public String wireName() {
        return wireName;
    }

    /**
     * Parses a wire name, case-insensitively.
     *
     * @param name {@code oauth}, {@code apikey} or {@code local}
     * @return the class
     * @throws IllegalArgumentException when the name is none of these
     */
    public static ProviderClass fromWireName(String name) {
        if (name != null) {
            String n = name.toLowerCase(Locale.ROOT);
            for (ProviderClass c : values()) {
                if (c.wireName.equals(n)) {
                    return c;
                }
            }
        }
        throw new IllegalArgumentException("unknown provider class '" + name + "' (expected oauth, apikey or local)");
    }
}
