package dev.sluice.runtime.plugin;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.ExecutorCustomizer;
import dev.sluice.runtime.openai.OpenAiCompatibleExecutor;
import dev.sluice.api.HostContext;
import dev.sluice.api.PluginSettings;
import dev.sluice.api.SharedNotes;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.upstream.UpstreamHttp;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the runtime hands one plugin (SPEC PA-4): the shared HTTP client, the clock, that
 * plugin's settings only, a logger named after it, and the built-in executors.
 */
public final class DefaultHostContext implements HostContext {

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final PluginSettings settings;
    private final System.Logger logger;
    private final Map<String, ProviderExecutor> builtins;
    private final CredentialUpdates credentialUpdates;
    private final SharedNotes sharedNotes;

    private DefaultHostContext(Builder b) {
        this.http = b.http;
        this.clock = b.clock;
        Map<String, String> copy = Map.copyOf(b.settings);
        this.settings = new PluginSettings() {
            @Override
            public Optional<String> get(String key) {
                return Optional.ofNullable(copy.get(key));
            }

            @Override
            public Set<String> keys() {
                return copy.keySet();
            }
        };
        this.logger = System.getLogger("sluice.plugin." + b.pluginName);
        this.builtins = Map.copyOf(b.builtins);
        this.credentialUpdates = b.credentialUpdates;
        this.sharedNotes = b.sharedNotes;
    }

    /**
     * Starts the context of one plugin with what every one has; the rest defaults to none (issue 35: one way to make one).
     *
     * @param pluginName the plugin name
     * @param http the upstream client
     * @param clock the clock
     * @param settings the plugin's settings
     * @param builtins built-in executors by name
     * @return the builder
     */
    public static Builder builder(String pluginName, UpstreamHttp http, InstantSource clock, Map<String, String> settings,
            Map<String, ProviderExecutor> builtins) {
        return new Builder(pluginName, http, clock, settings, builtins);
    }

    /** What a plugin's context is made of; the optional parts default to none. */
    public static final class Builder {
        private final String pluginName;
        private final UpstreamHttp http;
        private final InstantSource clock;
        private final Map<String, String> settings;
        private final Map<String, ProviderExecutor> builtins;
        private CredentialUpdates credentialUpdates;
        private SharedNotes sharedNotes;

        private Builder(String pluginName, UpstreamHttp http, InstantSource clock, Map<String, String> settings,
                Map<String, ProviderExecutor> builtins) {
            this.pluginName = pluginName;
            this.http = http;
            this.clock = clock;
            this.settings = settings;
            this.builtins = builtins;
        }

        /**
         * @param updates where this plugin's executors persist renewed credentials, or null: none
         * @return this
         */
        public Builder credentialUpdates(CredentialUpdates updates) {
            this.credentialUpdates = updates;
            return this;
        }

        /**
         * @param notes the plugin's notes shared with the other instances, or null on a single instance
         * @return this
         */
        public Builder sharedNotes(SharedNotes notes) {
            this.sharedNotes = notes;
            return this;
        }

        /** @return the context */
        public DefaultHostContext build() {
            return new DefaultHostContext(this);
        }
    }

    @Override
    public Optional<SharedNotes> sharedNotes() {
        return Optional.ofNullable(sharedNotes);
    }

    @Override
    public Optional<CredentialUpdates> credentialUpdates() {
        return Optional.ofNullable(credentialUpdates);
    }

    @Override
    public UpstreamHttp http() {
        return http;
    }

    @Override
    public InstantSource clock() {
        return clock;
    }

    @Override
    public PluginSettings settings() {
        return settings;
    }

    @Override
    public System.Logger logger() {
        return logger;
    }

    @Override
    public Optional<ProviderExecutor> builtinExecutor(String name) {
        return Optional.ofNullable(builtins.get(name));
    }

    @Override
    public Optional<ProviderExecutor> builtinExecutor(String name, ExecutorCustomizer customizer) {
        java.util.Objects.requireNonNull(customizer, "customizer is null");
        // every built-in is an OpenAI-compatible executor today; another kind would answer empty
        return builtinExecutor(name).map(e -> e instanceof OpenAiCompatibleExecutor openAi ? openAi.customized(customizer)
                : customizer.isEmpty() ? e : null);
    }
}
