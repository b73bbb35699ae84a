package dev.sluice.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 36: {@code bin/sluice login <provider> --device} starts a device flow, prints where to enter
 * the user code, reads the flow every {@link LoginCommands#POLL_EVERY} until it ends and prints the
 * connection (or why not). A mock admin API answers; the pause between reads is counted, not slept.
 */
class LoginCommandTest {

    private MockUpstream admin;
    private HttpClient http;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<Duration> pauses = new ArrayList<>();

    @BeforeEach
    void start() {
        admin = MockUpstream.start();
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterEach
    void stop() {
        http.close();
        admin.close();
    }

    private int login(String provider, String name) {
        AdminCommands commands = new AdminCommands(new AdminClient(URI.create(admin.baseUrl()), "sk-admin-0123456789", http),
                new BufferedReader(new StringReader("")), Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), pauses::add);
        return commands.run(new Command.Login(provider, Optional.ofNullable(name), true));
    }

    private static String flow(String status, String extra) {
        return "{\"flowId\":\"f-1\",\"provider\":\"codex\",\"type\":\"device\",\"status\":\"" + status + "\",\"expiresAt\":1" + extra + "}";
    }

    @Test
    void aDeviceLoginPrintsTheUserCodeAndWhereToEnterItWaitsForApprovalAndPrintsTheConnection() throws Exception {
        admin.enqueue(MockResponse.json(200, "{\"flowId\":\"f-1\",\"type\":\"device\",\"userCode\":\"ABCD-1234\","
                + "\"verificationUri\":\"https://auth.openai.com/codex/device\",\"expiresAt\":1}"));
        admin.enqueue(MockResponse.json(200, flow("pending", "")));
        admin.enqueue(MockResponse.json(200, flow("pending", "")));
        admin.enqueue(MockResponse.json(200, flow("connected", ",\"connectionId\":\"c-9\"")));
        admin.enqueue(MockResponse.json(200, "{\"id\":\"c-9\",\"provider\":\"codex\",\"name\":\"laptop\",\"authType\":\"oauth\"}"));

        int status = login("codex", "laptop");

        assertThat(status).as(err::toString).isEqualTo(Cli.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Open https://auth.openai.com/codex/device and enter the code ABCD-1234")
                .contains("Connected: connection c-9 (codex, 'laptop', authType oauth)");
        RecordedRequest start = admin.takeRequest(Duration.ofSeconds(5));
        assertThat(start.method()).isEqualTo("POST");
        assertThat(start.path()).isEqualTo("/api/oauth/codex/start");
        assertThat(new ObjectMapper().readTree(start.body())).isEqualTo(new ObjectMapper().readTree("{\"name\":\"laptop\",\"flow\":\"device\"}"));
        for (int i = 0; i < 3; i++) {
            assertThat(admin.takeRequest(Duration.ofSeconds(5)).path()).isEqualTo("/api/oauth/flows/f-1");
        }
        assertThat(admin.takeRequest(Duration.ofSeconds(5)).path()).isEqualTo("/api/providers/c-9");
        assertThat(pauses).as("one pause between reads of a pending flow").containsExactly(LoginCommands.POLL_EVERY, LoginCommands.POLL_EVERY);
    }

    @Test
    void aDeviceLoginThatEndsWithoutAConnectionFailsWithTheFlowsReason() {
        admin.enqueue(MockResponse.json(200, "{\"flowId\":\"f-1\",\"type\":\"device\",\"userCode\":\"U-1\","
                + "\"verificationUri\":\"https://chat.qwen.ai/authorize\",\"expiresAt\":1}"));
        admin.enqueue(MockResponse.json(200, flow("expired", ",\"error\":\"the user code expired before it was entered\"")));

        int status = login("qwen", null);

        assertThat(status).isEqualTo(Cli.FAILED);
        assertThat(err.toString(StandardCharsets.UTF_8).strip())
                .isEqualTo("sluice: login expired: the user code expired before it was entered");
        assertThat(pauses).isEmpty();
        assertThat(admin.requestCount()).as("nothing is read after the flow ended").isEqualTo(2);
    }
}
