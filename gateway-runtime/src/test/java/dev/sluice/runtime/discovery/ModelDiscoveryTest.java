package dev.sluice.runtime.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.runtime.routing.BuiltinProviders;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.JdbcDiscoveredModels;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Model discovery on a real SQLite database and a loopback mock (issue 32), run on the test's thread. */
class ModelDiscoveryTest {

    @TempDir
    Path dir;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    private final HelidonUpstreamHttp http = new HelidonUpstreamHttp(Duration.ofSeconds(2), Duration.ofSeconds(5));
    private Database db;
    private JdbcConnectionStore store;
    private ProviderCatalog catalog;
    private MockUpstream upstream;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
        // discovery never calls an executor: one that refuses shows it
        dev.sluice.api.ProviderExecutor none = call -> {
            throw new AssertionError("discovery called an executor");
        };
        catalog = new ProviderCatalog(List.of(new Provider(BuiltinProviders.GLM, none, Provider.BUILT_IN)), none, store, Map.of());
        upstream = MockUpstream.start().models("a", "b");
    }

    @AfterEach
    void close() {
        upstream.close();
        db.close();
    }

    private ModelDiscovery discovery(Duration interval) {
        return new ModelDiscovery(store, catalog, route -> http, new JdbcDiscoveredModels(db), new ObjectMapper(), clock, interval,
                Duration.ofSeconds(5));
    }

    private Connection connection(String provider, String baseUrl) {
        return store.create(new NewConnection(provider, provider, ProviderClass.APIKEY, "sk-0123456789abcdef", null, baseUrl, 1, true, null,
                null, false, null, null, null));
    }

    @Test
    void aFailureKeepsTheLastListAndSaysWhyAndTheNextSuccessReplacesIt() {
        Connection c = connection("acme", upstream.baseUrl() + "/v1");
        try (ModelDiscovery d = discovery(Duration.ofHours(1))) {
            assertThat(d.discoverNow(c)).contains(new DiscoveredModels(List.of("a", "b"), clock.millis(), null));
            clock.advance(Duration.ofMinutes(1));
            upstream.modelsResponse(MockResponse.status(401, "{}"));
            assertThat(d.discoverNow(c)).contains(new DiscoveredModels(List.of("a", "b"), clock.millis(), "GET /models answered HTTP 401"));
            assertThat(d.ids(c.id())).containsExactly("a", "b");
            upstream.close();
            assertThat(d.discoverNow(c).orElseThrow().error()).startsWith("GET /models failed: ");
            assertThat(d.ids(c.id())).containsExactly("a", "b");
        }
    }

    @Test
    void whatWasFoundIsStoredWithTheConnectionAndListedAfterARestart() {
        Connection c = connection("acme", upstream.baseUrl() + "/v1");
        try (ModelDiscovery d = discovery(Duration.ofHours(1))) {
            d.discoverNow(c);
        }
        upstream.modelsResponse(MockResponse.status(500, "{}"));
        try (ModelDiscovery restarted = discovery(Duration.ofHours(1))) {
            // loaded from the row at start, before (and whatever) its own first run finds
            restarted.start(null);
            assertThat(restarted.ids(c.id())).containsExactly("a", "b");
        }
        try (ModelDiscovery off = discovery(Duration.ZERO).start(null)) {
            assertThat(off.ids(c.id())).as("off: nothing discovered is listed").isEmpty();
            assertThat(off.discover(c.id())).isFalse();
        }
    }

    /**
     * A discovery started by creation (or the interval) reads on a platform thread: reading a large
     * model list that arrives as fast as it is read never blocks, and a virtual thread that never
     * blocks keeps its carrier — with the one carrier of a 2-CPU host no client connection was served
     * for seconds, and the hostile-answers set-up's next admin call got no answer.
     */
    @Test
    void aDiscoveryReadsOnAPlatformThreadNotOnTheCarriersThatServeClients() throws Exception {
        Connection c = connection("acme", upstream.baseUrl() + "/v1");
        java.util.concurrent.CompletableFuture<Thread> reader = new java.util.concurrent.CompletableFuture<>();
        dev.sluice.api.upstream.UpstreamHttp recording = request -> {
            reader.complete(Thread.currentThread());
            return http.send(request);
        };
        try (ModelDiscovery d = new ModelDiscovery(store, catalog, route -> recording, new JdbcDiscoveredModels(db), new ObjectMapper(), clock,
                Duration.ofHours(1), Duration.ofSeconds(5))) {
            assertThat(d.discover(c.id())).isTrue();
            Thread t = reader.get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(t.isVirtual()).as("discovery thread %s", t.getName()).isFalse();
            assertThat(t.isDaemon()).as("a discovery never holds the JVM up").isTrue();
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(d.ids(c.id())).containsExactly("a", "b"));
        }
    }

    /**
     * Issue 32: discovery runs again every {@code upstream.modelDiscoveryIntervalMs} by itself (no
     * creation, no test of the connection), and what the next run finds replaces the list. The
     * interval is a real scheduler's, so the test sets it short and waits with Awaitility.
     */
    @Test
    void everyIntervalDiscoversEachConnectionAgainUnasked() {
        Connection c = connection("acme", upstream.baseUrl() + "/v1");
        try (ModelDiscovery d = discovery(Duration.ofMillis(200)).start(null)) {
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(d.ids(c.id())).containsExactly("a", "b"));
            int runs = upstream.modelsRequests().size();
            upstream.models("c");
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(d.ids(c.id())).containsExactly("c"));
            assertThat(upstream.modelsRequests().size()).as("a later run asked the upstream again").isGreaterThan(runs);
        }
    }

    /**
     * Issue 32: which connections are asked — built-in {@code openai}, custom providers and plugin
     * providers whose descriptor says {@code discoversModels}; never a plugin provider that does
     * not say so, and never a disabled connection.
     */
    @Test
    void theOpenAiProviderCustomProvidersAndPluginsThatSaySoAreAskedButNotADisabledConnection() {
        dev.sluice.api.ProviderExecutor none = call -> {
            throw new AssertionError("discovery called an executor");
        };
        ProviderDescriptor zenith = ProviderDescriptor.builder("zenith").defaultBaseUrl("https://api.zenith.invalid/v1")
                .discoversModels(true).build();
        ProviderDescriptor quiet = ProviderDescriptor.builder("quiet").defaultBaseUrl("https://api.quiet.invalid/v1").build();
        catalog = new ProviderCatalog(List.of(new Provider(BuiltinProviders.OPENAI, none, Provider.BUILT_IN),
                new Provider(zenith, none, "zenith-plugin"), new Provider(quiet, none, "quiet-plugin")), none, store, Map.of());
        String base = upstream.baseUrl() + "/v1";
        try (ModelDiscovery d = discovery(Duration.ofHours(1))) {
            for (String asked : List.of("openai", "zenith", "acme")) {
                assertThat(d.discoverNow(connection(asked, base))).as(asked).isPresent();
            }
            assertThat(upstream.modelsRequests()).hasSize(3);
            Connection silent = connection("quiet", base);
            assertThat(d.discoverNow(silent)).as("a plugin provider that does not say discoversModels").isEmpty();
            assertThat(d.discover(silent.id())).isFalse();
            Connection disabled = store.create(new NewConnection("acme", "acme off", ProviderClass.APIKEY, "sk-0123456789abcdef", null, base, 2,
                    false, null, null, false, null, null, null));
            assertThat(d.discover(disabled.id())).as("a disabled connection").isFalse();
        }
        assertThat(upstream.modelsRequests()).hasSize(3);
    }

    @Test
    void onlyEnabledConnectionsOfProvidersThatDiscoverAreAsked() {
        Connection glm = connection("glm", upstream.baseUrl() + "/v1");
        try (ModelDiscovery d = discovery(Duration.ofHours(1))) {
            assertThat(d.discoverNow(glm)).isEmpty();
            assertThat(d.discover(glm.id())).isFalse();
            assertThat(d.discover("no-such-connection")).isFalse();
        }
        assertThat(upstream.modelsRequests()).isEmpty();
    }
}
