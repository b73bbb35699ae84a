package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Describes one provider: how it is addressed ({@code id/model}), its default class and base URL,
 * the executor that calls it, the models it is known to serve, and its opt-ins to provider error
 * rule handling (SPEC ER-6).
 *
 * @param id provider id: lower case letters, digits, {@code .}, {@code _} and {@code -}, starting
 *     with a letter or digit (e.g. {@code agentrouter}, {@code opencode-go})
 * @param displayName human-readable name
 * @param defaultClass class used when a connection does not say otherwise
 * @param defaultBaseUrl base URL following the provider's official SDK (SPEC DM-1b); every
 *     connection may override it
 * @param executor name of the executor that calls this provider: {@value HostContext#OPENAI_COMPATIBLE}
 *     for the built-in OpenAI-compatible executor, or the {@link ExecutorFactory#name()} of a
 *     factory the same plugin contributes
 * @param models models known to be served; listed by {@code GET /v1/models}
 * @param passthroughModels when true, any model name is forwarded upstream as given, not only
 *     the listed ones
 * @param fullTextErrorRules membership of the full-text rule list (SPEC ER-2): error rules see
 *     the full upstream error text instead of only the structured error
 * @param honorsRuleScope membership of the honour-scope list (SPEC ER-3): a matched rule's
 *     {@code scope} is acted on end to end
 * @param modelPatterns model ids with {@code *} for any run of characters that the provider serves
 *     without listing them (dated and future ids of a family, SPEC API-1); empty for none
 * @param discoversModels the upstream answers OpenAI's {@code GET {baseUrl}/models} with the
 *     connection's bearer credential: the runtime reads it in the background and lists what it
 *     finds beside {@link #models()} (issue 32); false when absent
 * @param connectionFields the members of a connection's {@code providerSpecificData} this provider's
 *     executor reads, for the operator's forms (issue 33); empty when absent
 */
public record ProviderDescriptor(
        String id,
        String displayName,
        ProviderClass defaultClass,
        String defaultBaseUrl,
        String executor,
        List<ModelInfo> models,
        boolean passthroughModels,
        boolean fullTextErrorRules,
        boolean honorsRuleScope,
        List<String> modelPatterns,
        boolean discoversModels,
        List<ConnectionField> connectionFields) {

    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    /** Validates the fields and copies the model list. */
    public ProviderDescriptor {
        requireNonNull(id, "id is null");
        requireNonNull(displayName, "displayName is null");
        requireNonNull(defaultClass, "defaultClass is null");
        requireNonNull(defaultBaseUrl, "defaultBaseUrl is null");
        requireNonNull(executor, "executor is null");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("invalid provider id '" + id + "': use [a-z0-9][a-z0-9._-]*, at most 64 characters");
        }
        if (!defaultBaseUrl.startsWith("http://") && !defaultBaseUrl.startsWith("https://")) {
            throw new IllegalArgumentException("defaultBaseUrl of provider '" + id + "' is not an http(s) URL");
        }
        models = List.copyOf(models);
        modelPatterns = modelPatterns == null ? List.of() : List.copyOf(modelPatterns);
        connectionFields = connectionFields == null ? List.of() : List.copyOf(connectionFields);
        if (connectionFields.stream().map(ConnectionField::name).distinct().count() != connectionFields.size()) {
            throw new IllegalArgumentException("provider '" + id + "' declares a connection field twice");
        }
        for (String p : modelPatterns) {
            if (p.isBlank() || p.chars().anyMatch(Character::isWhitespace) || p.equals("*")) {
                throw new IllegalArgumentException("model pattern '" + p + "' of provider '" + id
                        + "' must be a model id with '*' for any run of characters, and more than '*'");
            }
        }
    }

    /**
     * A descriptor without connection fields (the form before issue 33).
     *
     * @param id provider id
     * @param displayName display name
     * @param defaultClass default connection class
     * @param defaultBaseUrl default base URL
     * @param executor executor name
     * @param models listed models
     * @param passthroughModels whether any model id is served
     * @param fullTextErrorRules whether error rules see the full body text
     * @param honorsRuleScope whether error rules' scopes are honoured
     * @param modelPatterns model ids with {@code *} served without being listed
     * @param discoversModels whether the upstream's model list is read
     * @deprecated a positional form that drops every later component: use {@link #builder(String)}; removed at
     *     {@code SPI_VERSION} 2
     */
    @Deprecated(since = "0.1")
    public ProviderDescriptor(String id, String displayName, ProviderClass defaultClass, String defaultBaseUrl, String executor,
            List<ModelInfo> models, boolean passthroughModels, boolean fullTextErrorRules, boolean honorsRuleScope,
            List<String> modelPatterns, boolean discoversModels) {
        this(id, displayName, defaultClass, defaultBaseUrl, executor, models, passthroughModels, fullTextErrorRules, honorsRuleScope,
                modelPatterns, discoversModels, List.of());
    }

    /**
     * A descriptor that does not discover its models (the form before issue 32).
     *
     * @param id provider id
     * @param displayName display name
     * @param defaultClass default connection class
     * @param defaultBaseUrl default base URL
     * @param executor executor name
     * @param models listed models
     * @param passthroughModels whether any model id is served
     * @param fullTextErrorRules whether error rules see the full body text
     * @param honorsRuleScope whether error rules' scopes are honoured
     * @param modelPatterns model ids with {@code *} served without being listed
     * @deprecated a positional form that drops every later component: use {@link #builder(String)}; removed at
     *     {@code SPI_VERSION} 2
     */
    @Deprecated(since = "0.1")
    public ProviderDescriptor(String id, String displayName, ProviderClass defaultClass, String defaultBaseUrl, String executor,
            List<ModelInfo> models, boolean passthroughModels, boolean fullTextErrorRules, boolean honorsRuleScope,
            List<String> modelPatterns) {
        this(id, displayName, defaultClass, defaultBaseUrl, executor, models, passthroughModels, fullTextErrorRules, honorsRuleScope,
                modelPatterns, false);
    }

    /**
     * A descriptor without model patterns (the form of SPI 1.0).
     *
     * @param id provider id
     * @param displayName display name
     * @param defaultClass default connection class
     * @param defaultBaseUrl default base URL
     * @param executor executor name
     * @param models listed models
     * @param passthroughModels whether any model id is served
     * @param fullTextErrorRules whether error rules see the full body text
     * @param honorsRuleScope whether error rules' scopes are honoured
     * @deprecated a positional form that drops every later component: use {@link #builder(String)}; removed at
     *     {@code SPI_VERSION} 2
     */
    @Deprecated(since = "0.1")
    public ProviderDescriptor(String id, String displayName, ProviderClass defaultClass, String defaultBaseUrl, String executor,
            List<ModelInfo> models, boolean passthroughModels, boolean fullTextErrorRules, boolean honorsRuleScope) {
        this(id, displayName, defaultClass, defaultBaseUrl, executor, models, passthroughModels, fullTextErrorRules, honorsRuleScope,
                List.of());
    }

    /**
     * Copy that also serves the model ids matching these patterns without listing them (SPEC
     * API-1): dated and future ids of a family, e.g. {@code claude-*}. A bare model name matching
     * a pattern routes to this provider when it has a connection.
     *
     * @param patterns model ids with {@code *} for any run of characters
     * @return the copy
     */
    public ProviderDescriptor withModelPatterns(String... patterns) {
        return new ProviderDescriptor(id, displayName, defaultClass, defaultBaseUrl, executor, models, passthroughModels,
                fullTextErrorRules, honorsRuleScope, List.of(patterns), discoversModels, connectionFields);
    }

    /**
     * Whether this provider serves a model id by one of its patterns.
     *
     * @param model the model id (without the provider prefix)
     * @return true when a pattern matches
     */
    public boolean servesByPattern(String model) {
        for (String p : modelPatterns) {
            if (globMatches(p, model)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a {@code *} glob matches a text (case-sensitive; {@code *} is any run, possibly empty).
     *
     * @param glob the glob
     * @param text the text
     * @return true when it matches
     */
    public static boolean globMatches(String glob, String text) {
        int g = 0;
        int t = 0;
        int star = -1;
        int mark = 0;
        while (t < text.length()) {
            if (g < glob.length() && glob.charAt(g) != '*' && glob.charAt(g) == text.charAt(t)) {
                g++;
                t++;
            } else if (g < glob.length() && glob.charAt(g) == '*') {
                star = g++;
                mark = t;
            } else if (star >= 0) {
                g = star + 1;
                t = ++mark;
            } else {
                return false;
            }
        }
        while (g < glob.length() && glob.charAt(g) == '*') {
            g++;
        }
        return g == glob.length();
    }

    /**
     * Checks whether a string is a valid provider id.
     *
     * @param id candidate id
     * @return true when valid
     */
    public static boolean isValidId(String id) {
        return id != null && ID.matcher(id).matches();
    }

    /**
     * A provider served by the built-in OpenAI-compatible executor, with passthrough models and
     * no error-rule opt-ins.
     *
     * @param id provider id
     * @param displayName human-readable name
     * @param defaultClass default connection class
     * @param defaultBaseUrl base URL including the version path (e.g. {@code https://api.openai.com/v1})
     * @param models known models
     * @return the descriptor
     */
    public static ProviderDescriptor openAiCompatible(
            String id, String displayName, ProviderClass defaultClass, String defaultBaseUrl, List<ModelInfo> models) {
        return new ProviderDescriptor(id, displayName, defaultClass, defaultBaseUrl,
                HostContext.OPENAI_COMPATIBLE, models, true, false, false);
    }

    /**
     * Copy with another executor.
     *
     * @param executorName executor name
     * @return the copy
     */
    public ProviderDescriptor withExecutor(String executorName) {
        return new ProviderDescriptor(id, displayName, defaultClass, defaultBaseUrl, executorName, models,
                passthroughModels, fullTextErrorRules, honorsRuleScope, modelPatterns, discoversModels, connectionFields);
    }

    /**
     * Copy with the error-rule opt-ins of SPEC ER-6.
     *
     * @param fullText see {@link #fullTextErrorRules()}
     * @param honorScope see {@link #honorsRuleScope()}
     * @return the copy
     */
    public ProviderDescriptor withErrorRuleOptIns(boolean fullText, boolean honorScope) {
        return new ProviderDescriptor(id, displayName, defaultClass, defaultBaseUrl, executor, models,
                passthroughModels, fullText, honorScope, modelPatterns, discoversModels, connectionFields);
    }

    /**
     * A builder: the way to describe a provider that keeps compiling and linking when the SPI
     * adds fields (they get defaults here), unlike the positional constructors.
     *
     * <pre>{@code
     * ProviderDescriptor.builder("acme")
     *         .displayName("Acme AI")
     *         .defaultBaseUrl("https://api.acme.example/v1")
     *         .models(List.of(ModelInfo.chat("acme-1")))
     *         .errorRuleOptIns(false, true)
     *         .build();
     * }</pre>
     *
     * @param id provider id
     * @return the builder: display name = id, class {@link ProviderClass#APIKEY}, executor
     *     {@value HostContext#OPENAI_COMPATIBLE}, no models, no passthrough models, no error-rule
     *     opt-ins, no model patterns, no model discovery, no connection fields; the base URL must be set
     */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /**
     * A builder holding this descriptor's values.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return new Builder(id).displayName(displayName).defaultClass(defaultClass).defaultBaseUrl(defaultBaseUrl).executor(executor)
                .models(models).passthroughModels(passthroughModels).errorRuleOptIns(fullTextErrorRules, honorsRuleScope)
                .modelPatterns(modelPatterns).discoversModels(discoversModels).connectionFields(connectionFields);
    }

    /** Builds a {@link ProviderDescriptor}; not thread-safe. Validation happens in {@link #build()}. */
    public static final class Builder {
        private final String id;
        private String displayName;
        private ProviderClass defaultClass = ProviderClass.APIKEY;
        private String defaultBaseUrl;
        private String executor = HostContext.OPENAI_COMPATIBLE;
        private List<ModelInfo> models = List.of();
        private boolean passthroughModels;
        private boolean fullTextErrorRules;
        private boolean honorsRuleScope;
        private List<String> modelPatterns = List.of();
        private boolean discoversModels;
        private List<ConnectionField> connectionFields = List.of();

        private Builder(String id) {
            this.id = id;
            this.displayName = id;
        }

        /**
         * @param value human-readable name
         * @return this builder
         */
        public Builder displayName(String value) {
            displayName = value;
            return this;
        }

        /**
         * @param value class used when a connection does not say otherwise
         * @return this builder
         */
        public Builder defaultClass(ProviderClass value) {
            defaultClass = value;
            return this;
        }

        /**
         * @param value base URL following the provider's official SDK, e.g. {@code https://api.acme.example/v1}
         * @return this builder
         */
        public Builder defaultBaseUrl(String value) {
            defaultBaseUrl = value;
            return this;
        }

        /**
         * @param value a built-in executor name or an {@link ExecutorFactory#name()} of the same plugin
         * @return this builder
         */
        public Builder executor(String value) {
            executor = value;
            return this;
        }

        /**
         * @param value models known to be served
         * @return this builder
         */
        public Builder models(List<ModelInfo> value) {
            models = value;
            return this;
        }

        /**
         * @param value whether any model name is forwarded upstream as given
         * @return this builder
         */
        public Builder passthroughModels(boolean value) {
            passthroughModels = value;
            return this;
        }

        /**
         * The error-rule opt-ins (SPEC ER-6).
         *
         * @param fullText error rules see the full upstream error text
         * @param honourScope a matched rule's scope is acted on
         * @return this builder
         */
        public Builder errorRuleOptIns(boolean fullText, boolean honourScope) {
            fullTextErrorRules = fullText;
            honorsRuleScope = honourScope;
            return this;
        }

        /**
         * @param value model ids with {@code *} served without being listed
         * @return this builder
         */
        public Builder modelPatterns(List<String> value) {
            modelPatterns = value;
            return this;
        }

        /**
         * @param value the upstream answers OpenAI's {@code GET {baseUrl}/models}, read in the
         *     background and listed (issue 32); default false
         * @return this builder
         */
        public Builder discoversModels(boolean value) {
            discoversModels = value;
            return this;
        }

        /**
         * @param value the members of a connection's {@code providerSpecificData} the provider's
         *     executor reads (issue 33); default none
         * @return this builder
         */
        public Builder connectionFields(List<ConnectionField> value) {
            connectionFields = value;
            return this;
        }

        /**
         * @return the descriptor
         * @throws NullPointerException when the base URL (or another required value) is missing
         * @throws IllegalArgumentException when a value is invalid
         */
        public ProviderDescriptor build() {
            return new ProviderDescriptor(id, displayName, defaultClass, defaultBaseUrl, executor, models, passthroughModels,
                    fullTextErrorRules, honorsRuleScope, modelPatterns, discoversModels, connectionFields);
        }
    }
}
