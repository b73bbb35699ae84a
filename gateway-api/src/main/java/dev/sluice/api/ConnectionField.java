package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * One member of a connection's {@code providerSpecificData} that a provider reads (issue 33): its
 * name, the kind of value, and what it does. Declared in {@link ProviderDescriptor#connectionFields()},
 * shown by {@code GET /api/plugins}, and turned by the operator console into a form field, so an
 * operator sets a plugin's per-connection options without reading its source. The runtime does not
 * enforce the declaration: the data stays free-form, and executors read what they read.
 *
 * @param name the member's name in {@code providerSpecificData}: a letter, then letters, digits or {@code _}
 * @param type the kind of value
 * @param label a short human-readable name
 * @param description what the value does, with its default
 */
public record ConnectionField(String name, Type type, String label, String description) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]{0,63}");

    /** The kinds of value a connection field holds. */
    public enum Type {
        /** {@code true} or {@code false}. */
        BOOLEAN,
        /** A string. */
        STRING,
        /** An array of strings. */
        STRING_LIST,
        /** A whole number. */
        INTEGER
    }

    /** Validates. */
    public ConnectionField {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        requireNonNull(label, "label is null");
        requireNonNull(description, "description is null");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("connection field name '" + name + "' must be a letter then letters, digits or '_',"
                    + " at most 64 characters");
        }
    }

    /**
     * A builder: label = name, no description, until told otherwise.
     *
     * @param name the member's name in {@code providerSpecificData}
     * @param type the kind of value
     * @return the builder
     */
    public static Builder builder(String name, Type type) {
        return new Builder(name, type);
    }

    /** Builds a {@link ConnectionField}; not thread-safe. */
    public static final class Builder {
        private final String name;
        private final Type type;
        private String label;
        private String description = "";

        private Builder(String name, Type type) {
            this.name = name;
            this.type = type;
            this.label = name;
        }

        /**
         * @param value a short human-readable name
         * @return this builder
         */
        public Builder label(String value) {
            label = value;
            return this;
        }

        /**
         * @param value what the value does, with its default
         * @return this builder
         */
        public Builder description(String value) {
            description = value;
            return this;
        }

        /**
         * @return the field
         * @throws IllegalArgumentException when the name is invalid
         */
        public ConnectionField build() {
            return new ConnectionField(name, type, label, description);
        }
    }
}
