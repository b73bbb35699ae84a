package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.security.KeyHasher;
import dev.sluice.runtime.settings.ResilienceSettingsCodec;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcApiKeyStore;
import dev.sluice.runtime.store.JdbcSettingsStore;
import dev.sluice.testkit.TestClock;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET/PATCH /api/resilience} over a real server (SPEC §3, SE-1, SE-4). */
class SettingsDocumentServiceTest {

    private static final String ADMIN_KEY = "sk-test-admin-key-0123456789";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    private final TestClock clock = TestClock.create();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Database db;
    private JdbcApiKeyStore keys;
    private ResilienceSettingsService settings;
    private WebServer server;

    @BeforeEach
    void start() {
        db = Database.open(dir);
        keys = new JdbcApiKeyStore(db, clock);
        settings = new ResilienceSettingsService(ResilienceSettings.DEFAULTS, new JdbcSettingsStore(db, clock),
                ResilienceSettingsService.WARN_IN_LOG);
        Json json = new Json(MAPPER, 1 << 20);
        Authenticator auth = new Authenticator(keys, KeyHasher.hash(ADMIN_KEY));
        HttpRouting.Builder routing = HttpRouting.builder();
        new ErrorMapper(json).register(routing);
        routing.register("/api/resilience", new SettingsDocumentService(json, auth, SettingsDocumentService.resilience(settings)));
        // another group's sub-route beside it, as the breaker reset will be
        routing.register("/api/resilience", rules -> rules.post("/reset", (req, res) -> res.send("reset")));
        server = WebServer.builder().host("127.0.0.1").port(0).routing(routing).build().start();
    }

    @AfterEach
    void stop() {
        server.stop();
        db.close();
    }

    private HttpResponse<String> send(String method, String path, String key, String body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode read(String body) throws IOException {
        return MAPPER.readTree(body);
    }

    @Test
    void getReturnsTheWholeTree_SE4() throws Exception {
        HttpResponse<String> r = send("GET", "/api/resilience", ADMIN_KEY, null);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/json");
        assertThat(read(r.body())).isEqualTo(ResilienceSettingsCodec.toJson(ResilienceSettings.DEFAULTS));
        assertThat(send("GET", "/api/resilience/", ADMIN_KEY, null).statusCode()).isEqualTo(200);
    }

    @Test
    void patchDeepMergesAndAnswersTheNewTree_SE4() throws Exception {
        HttpResponse<String> r = send("PATCH", "/api/resilience", ADMIN_KEY,
                "{\"streamStallCooldown\":{\"enabled\":true},\"connectionCooldown\":{\"apikey\":{\"baseCooldownMs\":4000}},"
                        + "\"modelLockout\":{\"errorCodes\":[429]}}");

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode tree = read(r.body());
        assertThat(tree.at("/streamStallCooldown/enabled").booleanValue()).isTrue();
        assertThat(tree.at("/connectionCooldown/apikey/baseCooldownMs").intValue()).isEqualTo(4000);
        assertThat(tree.at("/connectionCooldown/apikey/maxBackoffSteps").intValue()).isEqualTo(5);
        assertThat(tree.at("/modelLockout/errorCodes")).isEqualTo(MAPPER.readTree("[429]"));
        assertThat(tree).isEqualTo(settings.tree());
        assertThat(settings.get().streamStallCooldown().enabled()).as("applies without restart").isTrue();
        assertThat(read(send("GET", "/api/resilience", ADMIN_KEY, null).body())).isEqualTo(tree);
    }

    @Test
    void aBadValueIsA400NamingThePath_SE1() throws Exception {
        HttpResponse<String> r = send("PATCH", "/api/resilience", ADMIN_KEY, "{\"modelLockout\":{\"maxCooldownMs\":1}}");

        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode error = read(r.body()).get("error");
        assertThat(error.get("param").asText()).isEqualTo("modelLockout.maxCooldownMs");
        assertThat(error.get("code").asText()).isEqualTo("invalid_request");
        assertThat(error.get("message").asText()).isEqualTo("'modelLockout.maxCooldownMs' must be between 5000 and 3600000, got 1.");
        assertThat(settings.get()).isEqualTo(ResilienceSettings.DEFAULTS);
    }

    @Test
    void anUnknownKeyIsA400NamingThePath_SE4() throws Exception {
        HttpResponse<String> r = send("PATCH", "/api/resilience", ADMIN_KEY, "{\"streamWatchdog\":{\"enabled\":true}}");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(read(r.body()).at("/error/param").asText()).isEqualTo("streamWatchdog");
    }

    @Test
    void aBodyThatIsNotAJsonObjectIsA400_SE1() throws Exception {
        for (String body : List.of("[]", "null", "{", "")) {
            HttpResponse<String> r = send("PATCH", "/api/resilience", ADMIN_KEY, body);
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            assertThat(read(r.body()).at("/error/type").asText()).isEqualTo("invalid_request_error");
        }
    }

    @Test
    void adminAuthIsRequired_AD1() throws Exception {
        assertThat(send("GET", "/api/resilience", null, null).statusCode()).isEqualTo(401);
        assertThat(send("PATCH", "/api/resilience", "sk-wrong", "{}").statusCode()).isEqualTo(401);
        String client = KeyHasher.generate(KeyHasher.CLIENT_KEY_PREFIX);
        keys.create("client", KeyHasher.hash(client), KeyHasher.preview(client), List.of(), List.of());
        assertThat(send("PATCH", "/api/resilience", client, "{\"modelLockout\":{\"enabled\":true}}").statusCode()).isEqualTo(403);
        assertThat(settings.get()).isEqualTo(ResilienceSettings.DEFAULTS);
        String admin = KeyHasher.generate(KeyHasher.CLIENT_KEY_PREFIX);
        keys.create("ops", KeyHasher.hash(admin), KeyHasher.preview(admin), List.of("admin"), List.of());
        assertThat(send("GET", "/api/resilience", admin, null).statusCode()).isEqualTo(200);
    }

    @Test
    void otherResilienceRoutesLiveBesideIt_SE4() throws Exception {
        HttpResponse<String> r = send("POST", "/api/resilience/reset", ADMIN_KEY, "{}");

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("reset");
    }
}
