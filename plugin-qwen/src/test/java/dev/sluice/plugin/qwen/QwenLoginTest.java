package dev.sluice.plugin.qwen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.plugin.DeviceLogin;
import dev.sluice.testkit.plugin.LoginConnection;
import dev.sluice.testkit.plugin.LoginDriver;
import dev.sluice.testkit.plugin.LoginResult;
import dev.sluice.testkit.plugin.PkceLogin;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 36: Qwen Code's device login, run by the host's flow code through the test kit against a loopback mock. */
class QwenLoginTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static Map<String, String> form(String body) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    void theDeviceLoginSendsItsPkcePairPollsAtTheIntervalAndTheResourceUrlBecomesTheBaseUrl() throws Exception {
        try (MockUpstream auth = MockUpstream.start();
                LoginDriver driver = LoginDriver.builder(new QwenPlugin())
                        .setting("oauthDeviceUrl", auth.baseUrl() + "/api/v1/oauth2/device/code")
                        .setting("oauthTokenUrl", auth.baseUrl() + "/api/v1/oauth2/token").build()) {
            auth.enqueue(MockResponse.json(200, "{\"device_code\":\"dc-q\",\"user_code\":\"QWEN-0001\",\"verification_uri\":"
                    + "\"https://chat.qwen.ai/authorize\",\"verification_uri_complete\":\"https://chat.qwen.ai/authorize?user_code=QWEN-0001\","
                    + "\"expires_in\":900,\"interval\":2}"));
            DeviceLogin login = driver.startDevice();
            assertThat(login.userCode()).isEqualTo("QWEN-0001");
            assertThat(login.verificationUri()).isEqualTo("https://chat.qwen.ai/authorize?user_code=QWEN-0001");
            Map<String, String> device = form(auth.takeRequest(TIMEOUT).body());
            assertThat(device).containsEntry("client_id", QwenPlugin.CLIENT_ID).containsEntry("scope", "openid profile email model.completion")
                    .containsEntry("code_challenge_method", "S256");
            auth.enqueue(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
            auth.enqueue(MockResponse.json(200, "{\"access_token\":\"at-q\",\"refresh_token\":\"rt-q\",\"token_type\":\"Bearer\","
                    + "\"expires_in\":21600,\"resource_url\":\"portal.qwen.ai\"}"));

            LoginResult result = login.runToEnd();

            assertThat(result.status()).as(String.valueOf(result.error())).isEqualTo(LoginResult.Status.CONNECTED);
            assertThat(login.pollOffsets()).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(4));
            auth.takeRequest(TIMEOUT);
            RecordedRequest granted = auth.takeRequest(TIMEOUT);
            Map<String, String> poll = form(granted.body());
            assertThat(poll).containsEntry("grant_type", "urn:ietf:params:oauth:grant-type:device_code").containsEntry("device_code", "dc-q");
            assertThat(PkceLogin.s256(poll.get("code_verifier"))).isEqualTo(device.get("code_challenge"));
            LoginConnection c = result.connection();
            assertThat(c.accessToken()).isEqualTo("at-q");
            assertThat(c.refreshToken()).isEqualTo("rt-q");
            assertThat(c.expiresAt()).isEqualTo(driver.clock().millis() + 21_600_000L);
            assertThat(c.baseUrl()).isEqualTo("https://portal.qwen.ai/v1");
            assertThat(c.name()).isEqualTo("qwen account");
        }
    }

    @Test
    void withoutAResourceUrlTheConnectionUsesDashScope() {
        try (MockUpstream auth = MockUpstream.start();
                LoginDriver driver = LoginDriver.builder(new QwenPlugin())
                        .setting("oauthDeviceUrl", auth.baseUrl() + "/device").setting("oauthTokenUrl", auth.baseUrl() + "/token").build()) {
            auth.enqueue(MockResponse.json(200, "{\"device_code\":\"d\",\"user_code\":\"U\",\"verification_uri\":\"https://q.invalid/a\"}"));
            DeviceLogin login = driver.startDevice();
            auth.enqueue(MockResponse.json(200, "{\"access_token\":\"at\",\"expires_in\":60}"));

            LoginResult result = login.runToEnd();

            assertThat(login.pollOffsets()).as("RFC 8628's 5 s when the server names no interval").containsExactly(Duration.ofSeconds(5));
            assertThat(result.connection().baseUrl()).isEqualTo(QwenPlugin.DEFAULT_BASE_URL);
        }
    }
}
