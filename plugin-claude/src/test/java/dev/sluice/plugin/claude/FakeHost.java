package dev.sluice.plugin.claude;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.HostContext;
import dev.sluice.api.PluginSettings;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.upstream.UpstreamHttp;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A host context over a fake upstream, a clock (fixed at {@link #NOW} unless given) and given
 * settings, optionally with credential updates.
 */
final class FakeHost implements HostContext {

    static final Instant NOW = Instant.ofEpochSecond(1_767_225_600L);

    private final UpstreamHttp http;
    private final Map<String, String> settings;
    private final InstantSource clock;
    private final CredentialUpdates updates;

    FakeHost(UpstreamHttp http, Map<String, String> settings) {
        this(http, settings, InstantSource.fixed(NOW), null);
    }

    FakeHost(UpstreamHttp http, Map<String, String> settings, InstantSource clock, CredentialUpdates updates) {
        this.http = http;
        this.settings = Map.copyOf(settings);
        this.clock = clock;
        this.updates = updates;
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
    public Optional<CredentialUpdates> credentialUpdates() {
        return Optional.ofNullable(updates);
    }

    @Override
    public PluginSettings settings() {
        return new PluginSettings() {
            @Override
            public Optional<String> get(String key) {
                return Optional.ofNullable(settings.get(key));
            }

            @Override
            public Set<String> keys() {
                return settings.keySet();
            }
        };
    }

    @Override
    public System.Logger logger() {
        return System.getLogger("sluice.plugin.claude.test");
    }

    @Override
    public Optional<ProviderExecutor> builtinExecutor(String name) {
        return Optional.empty();
    }
}
