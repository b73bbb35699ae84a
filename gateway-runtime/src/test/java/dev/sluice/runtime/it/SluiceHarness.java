package dev.sluice.runtime.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.SluiceServer;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.testkit.TestClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A real Sluice server on an ephemeral loopback port, with its own data folder, a test clock and
 * an HTTP client. Close it in {@code @AfterEach}.
 */
final class SluiceHarness implements AutoCloseable {

    static final String ADMIN_KEY = "sk-test-admin-key-0123456789";
    static final ObjectMapper JSON = new ObjectMapper();

    final TestClock clock = TestClock.create();
    final SluiceServer server;
    final ByteArrayOutputStream console = new ByteArrayOutputStream();
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    SluiceHarness(Path dir) {
        this(dir, SluiceConfig.DEFAULT_MAX_BODY_BYTES);
    }

    SluiceHarness(Path dir, long maxBodyBytes) {
        this(dir, maxBodyBytes, Map.of());
    }

    SluiceHarness(Path dir, long maxBodyBytes, Map<String, Map<String, String>> pluginSettings) {
        this(dir, maxBodyBytes, pluginSettings, Duration.ofSeconds(10));
    }

    SluiceHarness(Path dir, Duration headersTimeout) {
        this(dir, SluiceConfig.DEFAULT_MAX_BODY_BYTES, Map.of(), headersTimeout);
    }

    SluiceHarness(Path dir, long maxBodyBytes, Map<String, Map<String, String>> pluginSettings, Duration headersTimeout) {
        SluiceConfig config = new SluiceConfig("127.0.0.1", 0, dir.resolve("data"), dir.resolve("plugins"), false, ADMIN_KEY,
                null, maxBodyBytes, Duration.ofSeconds(5), headersTimeout, pluginSettings);
        server = SluiceServer.start(quickStop(config), clock, ModuleLayer.boot(), new PrintStream(console, true, StandardCharsets.UTF_8));
    }

    /** A server whose idle client connections are closed after {@code idleTimeout}. */
    static SluiceHarness withIdleTimeout(Path dir, Duration idleTimeout) {
        return new SluiceHarness(new SluiceConfig("127.0.0.1", 0, dir.resolve("data"), dir.resolve("plugins"), false, ADMIN_KEY, null,
                SluiceConfig.DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(5), Duration.ofSeconds(10), Map.of())
                .withIdleConnectionTimeout(idleTimeout));
    }

    /** A server with these client connection bounds (issue 29). */
    static SluiceHarness withClientLimits(Path dir, dev.sluice.runtime.config.ClientLimits limits) {
        return new SluiceHarness(new SluiceConfig("127.0.0.1", 0, dir.resolve("data"), dir.resolve("plugins"), false, ADMIN_KEY, null,
                SluiceConfig.DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(5), Duration.ofSeconds(10), Map.of()).withClientLimits(limits));
    }

    /** A server with these upstream memory bounds and upstream headers timeout. */
    static SluiceHarness withUpstreamLimits(Path dir, dev.sluice.runtime.config.UpstreamLimits limits, Duration headersTimeout) {
        return new SluiceHarness(new SluiceConfig("127.0.0.1", 0, dir.resolve("data"), dir.resolve("plugins"), false, ADMIN_KEY, null,
                SluiceConfig.DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(5), headersTimeout, Map.of()).withUpstreamLimits(limits));
    }

    /** A server whose model discovery runs every {@code interval} (zero: never, issue 32). */
    static SluiceHarness withModelDiscoveryInterval(Path dir, Duration interval) {
        return new SluiceHarness(new SluiceConfig("127.0.0.1", 0, dir.resolve("data"), dir.resolve("plugins"), false, ADMIN_KEY, null,
                SluiceConfig.DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(5), Duration.ofSeconds(10), Map.of())
                .withModelDiscoveryInterval(interval));
    }

    /** A server with these upstream connect and headers timeouts (issue 32). */
    static SluiceHarness withUpstreamTimeouts(Path dir, Duration connectTimeout, Duration headersTimeout) {
        return new SluiceHarness(new SluiceConfig("127.0.0.1", 0, dir.resolve("data"), dir.resolve("plugins"), false, ADMIN_KEY, null,
                SluiceConfig.DEFAULT_MAX_BODY_BYTES, connectTimeout, headersTimeout, Map.of()));
    }

    private SluiceHarness(SluiceConfig config) {
        server = SluiceServer.start(quickStop(config), clock, ModuleLayer.boot(), new PrintStream(console, true, StandardCharsets.UTF_8));
    }

    /** With these metrics and access-log settings. */
    SluiceHarness(Path dir, SluiceConfig.Observability observability) {
        SluiceConfig config = new SluiceConfig("127.0.0.1", 0, dir.resolve("data"), dir.resolve("plugins"), false, ADMIN_KEY,
                null, SluiceConfig.DEFAULT_MAX_BODY_BYTES, Duration.ofSeconds(5), Duration.ofSeconds(10), Map.of())
                .withObservability(observability);
        server = SluiceServer.start(quickStop(config), clock, ModuleLayer.boot(), new PrintStream(console, true, StandardCharsets.UTF_8));
    }

    String base() {
        return "http://127.0.0.1:" + server.port();
    }

    /** Registers a connection through the admin API and returns its id. */
    String addConnection(String json) {
        HttpResponse<String> r = send("POST", "/api/providers", ADMIN_KEY, json);
        if (r.statusCode() != 201) {
            throw new AssertionError("connection not created: " + r.statusCode() + " " + r.body());
        }
        return read(r.body()).get("id").asText();
    }

    String addOpenAiCompatible(String provider, String baseUrl, int priority) {
        return addConnection("{\"provider\":\"" + provider + "\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-" + provider + "-" + priority
                + "-abcdef\",\"baseUrl\":\"" + baseUrl + "\",\"priority\":" + priority + "}");
    }

    /** Creates a client key through the admin API and returns its secret. */
    /** Waits until the connection's first model discovery (issue 32) ended, its upstream connection back in the pool. */
    void awaitModelDiscovery(String connectionId) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                !read(send("GET", "/api/providers/" + connectionId, ADMIN_KEY, null).body()).path("modelDiscovery").isNull());
    }

    String addKey(String json) {
        HttpResponse<String> r = send("POST", "/api/keys", ADMIN_KEY, json);
        if (r.statusCode() != 201) {
            throw new AssertionError("key not created: " + r.statusCode() + " " + r.body());
        }
        return read(r.body()).get("key").asText();
    }

    HttpResponse<String> send(String method, String path, String key, String body) {
        return send(method, path, key, body, Map.of());
    }

    HttpResponse<String> send(String method, String path, String key, String body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        headers.forEach(b::header);
        try {
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String chatBody(String model, boolean stream) {
        return "{\"model\":\"" + model + "\",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    @Override
    public void close() {
        server.close();
    }

    /**
     * Helidon's stop before issue 37's grace (500 ms) unless a test chose its own: tests close servers
     * with requests or silent connections still open, and the shipped 5 s would be waited out each time.
     */
    private static SluiceConfig quickStop(SluiceConfig config) {
        dev.sluice.runtime.config.ClientLimits l = config.clientLimits();
        if (!l.shutdownGrace().equals(dev.sluice.runtime.config.ClientLimits.DEFAULT_SHUTDOWN_GRACE)) {
            return config;
        }
        return config.withClientLimits(new dev.sluice.runtime.config.ClientLimits(l.firstByteTimeout(), l.requestHeadTimeout(),
                l.maxConnections(), Duration.ofMillis(500)));
    }
}
