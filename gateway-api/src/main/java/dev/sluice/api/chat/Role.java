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

    /**
     * The wire name ({@code system}, {@code user}, ...).
     *
     * @return the lower-case name
     */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a wire name.
     *
     * @param name the name
     * @return the role
     * @throws IllegalArgumentException when unknown
     */
    public static Role fromWireName(String name) {
        if (name != null) {
            for (Role r : values()) {
                if (r.wireName().equals(name)) {
                    return r;
                }
            }
        }
        throw new IllegalArgumentException("unknown role '" + name + "'");
    }
}
