package dev.sluice.testkit.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.oauth.AccountConnections;
import dev.sluice.runtime.oauth.FlowView;
import dev.sluice.runtime.oauth.LoginException;
import dev.sluice.runtime.oauth.LoginFlows;
import dev.sluice.runtime.oauth.LoginSettings;
import dev.sluice.runtime.oauth.StartOptions;
import dev.sluice.runtime.oauth.TokenEndpoint;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.TestClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Drives a plugin's subscription login (its {@link OAuthLogin}) through the host's own flow code,
 * against an authorization server the test runs on loopback (typically a
 * {@link dev.sluice.testkit.MockUpstream} with the answers enqueued). Nothing of the flow is
 * re-implemented here: the driver builds the runtime's {@code LoginFlows} — the class behind
 * {@code POST /api/oauth/{provider}/start}, {@code GET /api/oauth/callback},
 * {@code POST /api/oauth/flows/{id}/code} and {@code GET /api/oauth/flows/{id}} — over the runtime's
 * HTTP client, a {@link TestClock} and a throwaway SQLite connection store, and applies the
 * endpoint settings with the runtime's {@code LoginSettings}, exactly as
 * {@code plugins.settings.<plugin>.oauth*} do in the server.
 *
 * <pre>{@code
 * try (MockUpstream auth = MockUpstream.start();
 *         LoginDriver driver = LoginDriver.builder(new AcmePlugin())
 *                 .setting("oauthAuthorizeUrl", auth.baseUrl() + "/authorize")
 *                 .setting("oauthTokenUrl", auth.baseUrl() + "/token")
 *                 .build()) {
 *     PkceLogin login = driver.startPkce();
 *     assertThat(login.authorizeParams()).containsEntry("client_id", "acme-cli");
 *     auth.enqueue(MockResponse.json(200, "{\"access_token\":\"at-1\",\"expires_in\":3600}"));
 *     LoginResult result = login.pasteCallbackUrl(login.callbackUrl("code-1"));
 *     assertThat(result.connection().accessToken()).isEqualTo("at-1");
 * }
 * }</pre>
 *
 * <p>Not thread-safe; one driver per test. {@link #close()} deletes the store.
 */
public final class LoginDriver implements AutoCloseable {

    /**
     * One request the host sent to the authorization server (device request, poll, code exchange).
     *
     * @param at when, on the driver's clock
     * @param method the HTTP method
     * @param uri the URL
     * @param status the answer's status, or -1 when the server could not be reached
     */
    public record Exchange(Instant at, String method, URI uri, int status) {
    }

    private final OAuthLogin login;
    private final ProviderDescriptor provider;
    private final TestClock clock;
    private final Path dataDir;
    private final Database db;
    private final JdbcConnectionStore store;
    private final LoginFlows flows;
    private final List<Exchange> exchanges;

    private LoginDriver(OAuthLogin login, ProviderDescriptor provider, TestClock clock, UpstreamHttp http, Duration timeout) {
        this.login = login;
        this.provider = provider;
        this.clock = clock;
        this.exchanges = new ArrayList<>();
        try {
            this.dataDir = Files.createTempDirectory("sluice-login-driver");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the driver's data folder", e);
        }
        this.db = Database.open(dataDir);
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        this.store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(key)), clock);
        UpstreamHttp recording = request -> {
            Instant at = clock.instant();
            try {
                UpstreamResponse response = http.send(request);
                record(new Exchange(at, request.method(), request.uri(), response.head().status()));
                return response;
            } catch (IOException e) {
                record(new Exchange(at, request.method(), request.uri(), -1));
                throw e;
            }
        };
        this.flows = new LoginFlows(Map.of(login.provider(), login), TokenEndpoint.direct(recording, timeout),
                new AccountConnections(store), clock);
    }

    /**
     * A builder for the login of one of the plugin's providers.
     *
     * @param plugin the plugin under test
     * @return the builder
     */
    public static Builder builder(ProviderPlugin plugin) {
        return new Builder(requireNonNull(plugin, "plugin is null"));
    }

    /**
     * The login as the host runs it: the plugin's description with the settings applied.
     *
     * @return the effective description
     */
    public OAuthLogin login() {
        return login;
    }

    /**
     * The clock the flows run on; {@link DeviceLogin#runToEnd()} advances it, a test may too.
     *
     * @return the clock
     */
    public TestClock clock() {
        return clock;
    }

    /**
     * Starts a PKCE login, as {@code POST /api/oauth/{provider}/start} with {@code "flow": "pkce"}.
     *
     * @return the login, waiting for its code
     * @throws LoginRefusedException when the host refuses the start (the login offers no PKCE flow: 400)
     */
    public PkceLogin startPkce() {
        return startPkce(LoginOptions.DEFAULTS);
    }

    /**
     * Starts a PKCE login with the operator's choices.
     *
     * @param options name, priority, base URL of the connection
     * @return the login
     * @throws LoginRefusedException when the host refuses the start
     */
    public PkceLogin startPkce(LoginOptions options) {
        FlowView view = call(() -> flows.start(login.provider(), options.toStart(OAuthFlow.PKCE)));
        return new PkceLogin(this, view);
    }

    /**
     * Starts a device-code login, as {@code POST /api/oauth/{provider}/start} with
     * {@code "flow": "device"}: the host asks the device endpoint for a user code at once, so the
     * test enqueues that answer first.
     *
     * @return the login, pending
     * @throws LoginRefusedException when the host refuses the start (no device flow: 400; the device
     *     endpoint refused or answered without a user code: 502)
     */
    public DeviceLogin startDevice() {
        return startDevice(LoginOptions.DEFAULTS);
    }

    /**
     * Starts a device-code login with the operator's choices.
     *
     * @param options name, priority, base URL of the connection
     * @return the login
     * @throws LoginRefusedException when the host refuses the start
     */
    public DeviceLogin startDevice(LoginOptions options) {
        Instant startedAt = clock.instant();
        int before = exchanges().size();
        FlowView view = call(() -> flows.start(login.provider(), options.toStart(OAuthFlow.DEVICE)));
        return new DeviceLogin(this, view, startedAt, before + 1);
    }

    /**
     * Every request the host sent to the authorization server, in order.
     *
     * @return the exchanges
     */
    public synchronized List<Exchange> exchanges() {
        return List.copyOf(exchanges);
    }

    /**
     * The connections logins created or updated so far (a second login to the same account
     * updates the first's connection), in creation order.
     *
     * @return the connections
     */
    public List<LoginConnection> connections() {
        return store.list().stream().map(this::connection).toList();
    }

    @Override
    public void close() {
        db.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind costs nothing
        }
    }

    synchronized List<Exchange> exchangesFrom(int index) {
        return List.copyOf(exchanges.subList(Math.min(index, exchanges.size()), exchanges.size()));
    }

    FlowView status(String flowId) {
        return call(() -> flows.status(flowId));
    }

    FlowView submit(String flowId, String code, String state, String callbackUrl) {
        return call(() -> flows.submit(flowId, code, state, callbackUrl));
    }

    FlowView callback(String state, String code, String error) {
        return call(() -> flows.callback(state, code, error));
    }

    LoginResult result(FlowView view) {
        LoginConnection c = view.connectionId() == null ? null
                : store.find(view.connectionId()).map(this::connection).orElse(null);
        return new LoginResult(LoginResult.Status.valueOf(view.status().toUpperCase(java.util.Locale.ROOT)), view.error(), c);
    }

    private LoginConnection connection(Connection c) {
        return LoginConnection.of(c, provider.defaultBaseUrl());
    }

    private synchronized void record(Exchange e) {
        exchanges.add(e);
    }

    private static FlowView call(Supplier<FlowView> step) {
        try {
            return step.get();
        } catch (LoginException e) {
            throw new LoginRefusedException(e.status(), e.code(), e.param(), e.getMessage());
        }
    }

    /** Builds a {@link LoginDriver}; not thread-safe. */
    public static final class Builder {
        private final ProviderPlugin plugin;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private String providerId;
        private TestClock clock;
        private UpstreamHttp http;
        private Duration timeout = Duration.ofSeconds(10);

        private Builder(ProviderPlugin plugin) {
            this.plugin = plugin;
        }

        /**
         * Which provider's login (default: the plugin's only one).
         *
         * @param value the provider id
         * @return this builder
         */
        public Builder provider(String value) {
            providerId = requireNonNull(value, "provider is null");
            return this;
        }

        /**
         * A setting of the plugin, as {@code plugins.settings.<plugin>.<key>} in {@code conf/sluice.yaml}:
         * {@code oauthAuthorizeUrl}, {@code oauthTokenUrl}, {@code oauthDeviceUrl}, {@code oauthClientId},
         * {@code oauthClientSecret}, {@code oauthRedirectUri}, {@code oauthScopes}, {@code upstreamBaseUrl},
         * {@code oauthDevicePollUrl}, {@code oauthDeviceVerificationUrl}, {@code oauthDeviceRedirectUri}.
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
         * The clock (default: a {@link TestClock} at 2026-01-01T00:00:00Z).
         *
         * @param value the clock
         * @return this builder
         */
        public Builder clock(TestClock value) {
            clock = requireNonNull(value, "clock is null");
            return this;
        }

        /**
         * Another HTTP client towards the authorization server (default: the runtime's).
         *
         * @param value the client
         * @return this builder
         */
        public Builder http(UpstreamHttp value) {
            http = requireNonNull(value, "http is null");
            return this;
        }

        /**
         * Bound on each request to the authorization server (default 10 s).
         *
         * @param value the timeout
         * @return this builder
         */
        public Builder timeout(Duration value) {
            timeout = requireNonNull(value, "timeout is null");
            return this;
        }

        /**
         * @return the driver; close it
         * @throws IllegalArgumentException when the plugin describes no login for the provider, describes one
         *     for a provider it does not declare (the server would refuse the plugin), or a setting is invalid
         *     (the server would log it and keep the plugin's own endpoints; a test must not reach them)
         */
        public LoginDriver build() {
            List<OAuthLogin> logins = plugin.oauthLogins();
            OAuthLogin described;
            if (providerId == null) {
                if (logins.size() != 1) {
                    throw new IllegalArgumentException("plugin '" + plugin.name() + "' describes " + logins.size()
                            + " logins; name the provider with provider(id)");
                }
                described = logins.get(0);
            } else {
                described = logins.stream().filter(l -> l.provider().equals(providerId)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("plugin '" + plugin.name()
                                + "' describes no OAuth login for provider '" + providerId + "'"));
            }
            ProviderDescriptor descriptor = plugin.providers().stream().filter(d -> d.id().equals(described.provider())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("oauthLogins() describes '" + described.provider()
                            + "', which is not one of its providers: the server would refuse plugin '" + plugin.name() + "'"));
            OAuthLogin effective;
            try {
                effective = LoginSettings.apply(described, settings);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("plugins.settings." + plugin.name() + ": " + e.getMessage(), e);
            }
            TestClock c = clock != null ? clock : TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
            return new LoginDriver(effective, descriptor, c, http != null ? http : new HelidonUpstreamHttp(timeout, timeout), timeout);
        }
    }
}
