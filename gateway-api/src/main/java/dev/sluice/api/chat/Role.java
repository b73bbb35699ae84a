package dev.sluice.api.chat;

import java.util.Locale;

/** The author of a chat message. */
public enum Role {
    /** System prompt. */
    SYSTEM,
    /** Developer instructions (OpenAI's newer name for system). */
    DEVELOPER,
    /** The user. */
    USER,
    /** The model. */
    ASSISTANT,
    /** A tool result. */
    TOOL;

    /** The wire names, computed once: they are asked for per message on the request path. */
    private final String wireName = name().toLowerCase(Locale.ROOT);

    /**
     * The wire name ({@code system}, {@code user}, ...).
     *
     * @return the lower-case name
     */
    public String wireName() {
        return wireName;
    }

    private static final Role[] VALUES = values();

    /**
     * Parses a wire name.
     *
     * @param name the name
     * @return the role
     * @throws IllegalArgumentException when unknown
     */
    public static Role fromWireName(String name) {
        if (name != null) {
            for (Role r : VALUES) {
                if (r.wireName.equals(name)) {
                    return r;
                }
            }
        }
        throw new IllegalArgumentException("unknown role '" + name + "'");
    }
}
