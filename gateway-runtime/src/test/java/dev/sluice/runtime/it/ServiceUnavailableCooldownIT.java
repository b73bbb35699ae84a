package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 503 policy through a real server (issue 32 §5): by default an upstream 503 fails over
 * without cooling the connection; with {@code serviceUnavailableCooldown.enabled} it cools it.
 */
class ServiceUnavailableCooldownIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream first;
    MockUpstream second;
    String firstId;
    String key;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        first = MockUpstream.start();
        second = MockUpstream.start();
        firstId = sluice.addOpenAiCompatible("acme", first.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("acme", second.baseUrl() + "/v1", 2);
        key = sluice.addKey("{\"name\":\"it\"}");
        first.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"Service Unavailable\"}}"));
        second.setDefault(MockResponse.completion("from second"));
    }

    @AfterEach
    void stop() {
        sluice.close();
        first.close();
        second.close();
    }

    @Test
    void a503FailsOverWithoutCoolingTheConnectionByDefault() {
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/m", false));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(first.requestCount()).isEqualTo(1);
        assertThat(testStatus()).isEqualTo("active");
    }

    @Test
    void withTheSettingOnA503CoolsTheConnection() {
        HttpResponse<String> patch = sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"serviceUnavailableCooldown\":{\"enabled\":true}}");
        assertThat(patch.statusCode()).as(patch.body()).isEqualTo(200);
        assertThat(read(patch.body()).at("/serviceUnavailableCooldown/enabled").asBoolean()).isTrue();

        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/m", false));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(testStatus()).isEqualTo("unavailable");
        // cooled: the next request goes straight to the second connection
        assertThat(sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/m", false)).statusCode()).isEqualTo(200);
        assertThat(first.requestCount()).isEqualTo(1);
    }

    private String testStatus() {
        return read(sluice.send("GET", "/api/providers/" + firstId, ADMIN_KEY, null).body()).get("testStatus").asText();
    }
}
