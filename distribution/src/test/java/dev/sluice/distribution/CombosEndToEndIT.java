package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Combos through the built distribution (SPEC §13 CO-1, CO-2; API-2). Mock upstreams on loopback. */
class CombosEndToEndIT {

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream first;
    private MockUpstream second;
    private SluiceClient client;
    private String clientKey;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() {
        first = MockUpstream.start();
        second = MockUpstream.start();
        client = new SluiceClient(servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey)));
        clientKey = client.createKey(adminKey, "combos");
    }

    @AfterEach
    void stop() {
        first.close();
        second.close();
    }

    @Test
    void aComboFallsBackFromAFailingTargetAndIsListedAsAModel_CO1_API2() {
        client.createConnection(adminKey, "alpha", "sk-alpha-0123456789", first.baseUrl() + "/v1");
        String beta = client.createConnection(adminKey, "beta", "sk-beta-0123456789", second.baseUrl() + "/v1");
        JsonNode created = client.expect(client.post("/api/combos", adminKey, Map.of("name", "coder", "strategy", "priority",
                "targets", List.of(Map.of("model", "alpha/m1"), Map.of("model", "beta/m2")))), 201);
        assertThat(created.at("/targets/1/model").asText()).isEqualTo("beta/m2");

        first.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"overloaded\"}}"));
        second.setDefault(MockResponse.completion("from beta"));
        HttpResponse<String> r = client.post("/v1/chat/completions", clientKey, SluiceClient.chat("coder", false));
        assertThat(client.expect(r, 200).at("/choices/0/message/content").asText()).isEqualTo("from beta");
        assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).hasValue(beta);
        assertThat(first.requestCount()).isEqualTo(1);

        JsonNode models = client.expect(client.get("/v1/models", clientKey), 200);
        assertThat(models.get("data").findValuesAsText("id")).contains("coder");

        HttpResponse<String> unknown = client.post("/api/combos", adminKey, Map.of("name", "bad", "strategy", "no-such",
                "targets", List.of(Map.of("model", "alpha/m1"))));
        assertThat(client.expect(unknown, 400).at("/error/param").asText()).isEqualTo("strategy");
    }
}
