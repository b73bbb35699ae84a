package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SEC-2, SEC-3 (issue 19): connections carry marker secrets — an API key, OAuth access and refresh
 * tokens, a proxy password, a password in a base URL — and after traffic (including an upstream
 * error that echoes the key) no admin answer, client answer, the server log or the database files
 * contain any of them.
 */
class SecretsEverywhereIT {

    private static final String KEY = "sk-marker-apikey-7f3a9c1e5b";
    private static final String ACCESS = "sk-ant-oat01-marker-access-4d2b8e";
    private static final String REFRESH = "sk-ant-ort01-marker-refresh-9a1c3f";
    private static final String PROXY_PASSWORD = "marker-proxy-pw-6e8d2a";
    private static final String BASE_PASSWORD = "marker-base-pw-3b7f1d";
    private static final List<String> MARKERS = List.of(KEY, ACCESS, REFRESH, PROXY_PASSWORD, BASE_PASSWORD);

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    @Test
    void noMarkerSecretAppearsInAnswersTheLogOrTheDatabaseFiles() throws Exception {
        String withKey = sluice.addConnection("{\"provider\":\"alpha\",\"authType\":\"apikey\",\"apiKey\":\"" + KEY + "\",\"baseUrl\":\"http://u:"
                + BASE_PASSWORD + "@127.0.0.1:" + upstream.port() + "/v1\",\"priority\":1}");
        String oauth = sluice.addConnection("{\"provider\":\"claude\",\"authType\":\"oauth\",\"oauth\":{\"accessToken\":\"" + ACCESS
                + "\",\"refreshToken\":\"" + REFRESH + "\"},\"baseUrl\":\"" + upstream.baseUrl() + "\",\"proxyUrl\":\"http://proxyuser:"
                + PROXY_PASSWORD + "@127.0.0.1:9\"}");
        String client = sluice.addKey("{\"name\":\"c\"}");
        upstream.enqueue(MockResponse.json(401, "{\"error\":{\"message\":\"key " + KEY + " revoked\"}}"));
        upstream.enqueue(MockResponse.completion("fine"));

        List<String> answers = new ArrayList<>();
        answers.add(sluice.send("POST", "/v1/chat/completions", client, SluiceHarness.chatBody("alpha/m", false)).body());
        answers.add(sluice.send("POST", "/v1/chat/completions", client, SluiceHarness.chatBody("alpha/m", true)).body());
        answers.add(sluice.send("POST", "/v1/chat/completions", client, SluiceHarness.chatBody("claude/claude-sonnet-4-5", false)).body());
        for (String path : List.of("/api/providers", "/api/providers/" + withKey, "/api/providers/" + oauth, "/api/resilience/cooldowns",
                "/api/monitoring/health", "/api/keys", "/api/settings", "/api/plugins", "/api/rate-limits", "/api/sessions", "/metrics",
                "/v1/models")) {
            HttpResponse<String> r = sluice.send("GET", path, path.startsWith("/v1") ? client : ADMIN_KEY, null);
            answers.add(path + " " + r.body());
        }
        sluice.server.proxyLogWriter().flush(java.time.Duration.ofSeconds(5));
        String log = sluice.console.toString();
        sluice.close();

        for (String marker : MARKERS) {
            for (String a : answers) {
                assertThat(a).as("an answer").doesNotContain(marker);
            }
            assertThat(log).as("the server log").doesNotContain(marker);
        }
        try (Stream<Path> files = Files.list(dir.resolve("data"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                for (String marker : MARKERS) {
                    assertThat(bytes).as(f.getFileName() + " holds no plaintext secret").doesNotContain(marker);
                }
            }
        }
    }
}
