package dev.sluice.testkit.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.ExecutorCustomizer;
import dev.sluice.api.HostContext;
import dev.sluice.api.PluginSettings;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.SharedNotes;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.openai.OpenAiCompatibleExecutor;
import dev.sluice.runtime.plugin.DefaultHostContext;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link HostContext} for plugin tests that behaves like the server's: the runtime's own upstream
 * HTTP client and built-in executors ({@link HostContext#OPENAI_COMPATIBLE},
 * {@link HostContext#OPENAI_RESPONSES}, customisable as in production), a {@link TestClock} the
 * test advances, the plugin's settings, and credential updates recorded for assertions.
 *
 * <pre>{@code
 * TestingHostContext host = TestingHostContext.builder("acme").setting("defaultMaxTokens", "512").build();
 * ProviderExecutor executor = new AcmeExecutorFactory().create(host);
 * }</pre>
 */
public final class TestingHostContext implements HostContext {

    /**
     * A renewal an executor reported through {@link CredentialUpdates#oauthRenewed}.
     *
     * @param connectionId the connection
     * @param accessToken the new access token
     * @param refreshToken the new refresh token, or null to keep
     * @param expiresAt expiry in epoch ms, or null
     */
    public record Renewal(String connectionId, String accessToken, String refreshToken, Long expiresAt) {
    }

    private final HostContext delegate;
    private final InstantSource clock;
    private final List<Renewal> renewals;

    private TestingHostContext(HostContext delegate, InstantSource clock, List<Renewal> renewals) {
        this.delegate = delegate;
        this.clock = clock;
        this.renewals = renewals;
    }

    /**
     * A builder for the context of one plugin.
     *
     * @param pluginName the plugin's {@code name()}: names its logger, as in the server
     * @return the builder
     */
    public static Builder builder(String pluginName) {
        return new Builder(requireNonNull(pluginName, "pluginName is null"));
    }

    @Override
    public UpstreamHttp http() {
        return delegate.http();
    }

    @Override
    public InstantSource clock() {
        return clock;
    }

    /**
     * The clock, for the test to advance.
     *
     * @return the test clock
     * @throws IllegalStateException when the builder was given another kind of clock
     */
    public TestClock testClock() {
        if (clock instanceof TestClock t) {
            return t;
        }
        throw new IllegalStateException("this host was built with its own clock, not a TestClock");
    }

    @Override
    public PluginSettings settings() {
        return delegate.settings();
    }

    @Override
    public System.Logger logger() {
        return delegate.logger();
    }

    @Override
    public Optional<ProviderExecutor> builtinExecutor(String name) {
        return delegate.builtinExecutor(name);
    }

    @Override
    public Optional<ProviderExecutor> builtinExecutor(String name, ExecutorCustomizer customizer) {
        return delegate.builtinExecutor(name, customizer);
    }

    @Override
    public Optional<CredentialUpdates> credentialUpdates() {
        return delegate.credentialUpdates();
    }

    @Override
    public Optional<SharedNotes> sharedNotes() {
        return delegate.sharedNotes();
    }

    /**
     * The credential renewals executors reported, in order.
     *
     * @return the renewals
     */
    public List<Renewal> renewals() {
        synchronized (renewals) {
            return List.copyOf(renewals);
        }
    }

    /** Builds a {@link TestingHostContext}; not thread-safe. */
    public static final class Builder {
        private final String pluginName;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private InstantSource clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
        private UpstreamHttp http;
        private boolean recordUpdates = true;
        private CredentialUpdates updates;
        private Duration timeout = Duration.ofSeconds(10);
        private SharedNotes notes;

        private Builder(String pluginName) {
            this.pluginName = pluginName;
        }

        /**
         * A setting of the plugin, as {@code plugins.settings.<name>.<key>} in {@code conf/sluice.yaml}.
         *
         * @param key the key
         * @param value the value
         * @return this builder
         */
        public Builder setting(String key, String value) {
            settings.put(requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
            return this;
        }

        /**
         * All settings at once, replacing those set before.
         *
         * @param values key to value
         * @return this builder
         */
        public Builder settings(Map<String, String> values) {
            settings.clear();
            values.forEach(this::setting);
            return this;
        }

        /**
         * The clock (default: a {@link TestClock} at 2026-01-01T00:00:00Z; any other
         * {@link InstantSource} works, then {@link TestingHostContext#testClock()} is unavailable).
         *
         * @param value the clock
         * @return this builder
         */
        public Builder clock(InstantSource value) {
            clock = requireNonNull(value, "clock is null");
            return this;
        }

        /**
         * Where renewed credentials go (default: recorded in {@link TestingHostContext#renewals()},
         * each accepted); null for a host that cannot store them ({@code credentialUpdates()} empty).
         *
         * @param value the updates, or null
         * @return this builder
         */
        public Builder credentialUpdates(CredentialUpdates value) {
            recordUpdates = false;
            updates = value;
            return this;
        }

        /**
         * Another upstream client, e.g. one that records or fails (default: the runtime's client).
         *
         * @param value the client
         * @return this builder
         */
        public Builder http(UpstreamHttp value) {
            http = requireNonNull(value, "http is null");
            return this;
        }

        /**
         * The runtime client's connect and headers timeout (default 10 s).
         *
         * @param value the timeout
         * @return this builder
         */
        public Builder timeout(Duration value) {
            timeout = requireNonNull(value, "timeout is null");
            return this;
        }

        /**
         * Notes shared with "other instances" (default: none, as on a single instance): e.g. one
         * {@link MemorySharedNotes} given to two contexts.
         *
         * @param value the notes, or null for none
         * @return this builder
         */
        public Builder sharedNotes(SharedNotes value) {
            notes = value;
            return this;
        }

        /**
         * @return the context
         */
        public TestingHostContext build() {
            UpstreamHttp client = http != null ? http : new HelidonUpstreamHttp(timeout, timeout);
            OpenAiCompatibleExecutor openAi = OpenAiCompatibleExecutor.create(client, new OpenAiCodec());
            Map<String, ProviderExecutor> builtins = Map.of(HOST_OPENAI_COMPATIBLE, openAi, HOST_OPENAI_RESPONSES,
                    openAi.withResponsesPassthrough());
            List<Renewal> renewals = Collections.synchronizedList(new ArrayList<>());
            CredentialUpdates recorder = (connectionId, access, refresh, expiresAt) -> {
                renewals.add(new Renewal(connectionId, access, refresh, expiresAt));
                return true;
            };
            return new TestingHostContext(DefaultHostContext.builder(pluginName, client, clock, settings, builtins)
                    .credentialUpdates(recordUpdates ? recorder : updates).sharedNotes(notes).build(), clock, renewals);
        }

        private static final String HOST_OPENAI_COMPATIBLE = HostContext.OPENAI_COMPATIBLE;
        private static final String HOST_OPENAI_RESPONSES = HostContext.OPENAI_RESPONSES;
    }
}
