package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admin writes are durable once answered: a connection and a key created through the admin API
 * survive a graceful stop (SIGTERM) and a {@code kill -9} right after the {@code 201}, and after
 * the restart the key still authenticates and the stored upstream credential still decrypts with
 * the {@code data/secret.key} generated on the first start (SPEC SH-4, SEC-1, SEC-2, SEC-3).
 */
class RestartDurabilityIT {

    private static final String UPSTREAM_KEY = "sk-test-0123456789abcdef";

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream upstream;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void startUpstream() {
        upstream = MockUpstream.start();
    }

    @AfterEach
    void stopUpstream() {
        upstream.close();
    }

    @Test
    void connectionAndKeySurviveAGracefulRestart_SH4() throws InterruptedException {
        writeThenRestart(SluiceProcess::stop);
    }

    @Test
    void connectionAndKeySurviveKillMinus9RightAfterTheirCreation_SH4() throws InterruptedException {
        writeThenRestart(SluiceProcess::kill);
    }

    private void writeThenRestart(Consumer<SluiceProcess> stopper) throws InterruptedException {
        Path data = work.resolve("data");

        SluiceProcess sluice = servers.start(home, SluiceProcess.env(data, adminKey));
        SluiceClient first = new SluiceClient(sluice);
        String connectionId = first.createConnection(adminKey, "agentrouter", UPSTREAM_KEY, upstream.baseUrl() + "/v1");
        String key = first.createKey(adminKey, "durable");
        stopper.accept(sluice);
        assertThat(sluice.isAlive()).as("the first server is gone").isFalse();

        SluiceClient second = new SluiceClient(servers.start(home, SluiceProcess.env(data, adminKey)));

        HttpResponse<String> providersResponse = second.get("/api/providers", adminKey);
        JsonNode providers = second.expect(providersResponse, 200);
        assertThat(SluiceClient.listed(providers, "id")).as(() -> second.describe(providersResponse))
                .containsExactly(connectionId);
        JsonNode connection = providers.path("data").get(0);
        assertThat(connection.path("provider").asText()).isEqualTo("agentrouter");
        assertThat(connection.path("apiKey").asText()).as("masked secret").isNotBlank().isNotEqualTo(UPSTREAM_KEY);
        assertThat(providersResponse.body()).as("SEC-2: the raw secret never leaves the server").doesNotContain(UPSTREAM_KEY);

        JsonNode models = second.expect(second.get("/v1/models", key), 200);
        assertThat(SluiceClient.listed(models, "id")).contains("agentrouter/claude-sonnet-4-5");
        assertThat(second.get("/v1/models", "sk-not-a-key").statusCode()).isEqualTo(401);

        // SEC-3: the credential stored encrypted before the restart still decrypts after it.
        upstream.enqueue(MockResponse.completion("still here"));
        HttpResponse<String> chat = second.post("/v1/chat/completions", key, SluiceClient.chat("agentrouter/claude-sonnet-4-5", false));
        assertThat(second.expect(chat, 200).at("/choices/0/message/content").asText()).isEqualTo("still here");
        RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(sent).isNotNull();
        assertThat(sent.header("authorization")).isEqualTo("Bearer " + UPSTREAM_KEY);
    }
}
