package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.plugin.PluginJars;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import dev.sluice.testkit.SseEvents;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 28, the {@code /v1/messages} passthrough path: a client that closes its socket mid-stream
 * ends the upstream request within 250 ms and frees the permit. The passthrough comes from a plugin
 * executor that speaks the Anthropic dialect (as the Claude plugin does), compiled here so the
 * test needs no provider's real endpoint.
 */
class MessagesPassthroughDisconnectIT {

    static final String MODULE_INFO = """
            module relay.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with relay.RelayPlugin;
            }
            """;

    static final String PLUGIN = """
            package relay;

            import dev.sluice.api.*;
            import dev.sluice.api.upstream.*;
            import java.util.*;

            public final class RelayPlugin implements ProviderPlugin {
                public RelayPlugin() { }
                @Override public String name() { return "relay"; }
                @Override public int spiVersion() { return SPI_VERSION; }
                @Override public List<ProviderDescriptor> providers() {
                    return List.of(ProviderDescriptor.openAiCompatible("relay", "Relay", ProviderClass.APIKEY,
                            "https://api.relay.invalid/v1", List.of(ModelInfo.chat("relay-1"))).withExecutor("relay-anthropic"));
                }
                @Override public List<ExecutorFactory> executors() {
                    return List.of(new ExecutorFactory() {
                        @Override public String name() { return "relay-anthropic"; }
                        @Override public ProviderExecutor create(HostContext host) {
                            ProviderExecutor base = host.builtinExecutor(HostContext.OPENAI_COMPATIBLE).orElseThrow();
                            return new ProviderExecutor() {
                                @Override public ChatOutcome chat(ChatCall call) { return base.chat(call); }
                                @Override public boolean supportsPassthrough(String dialect) {
                                    return PassthroughCall.ANTHROPIC_MESSAGES.equals(dialect);
                                }
                                @Override public PassthroughOutcome passthrough(PassthroughCall call) {
                                    try {
                                        UpstreamRequest r = new UpstreamRequest("POST", java.net.URI.create(call.target().baseUrl() + "/messages"),
                                                Map.of("content-type", "application/json", "accept", call.stream() ? "text/event-stream" : "application/json"),
                                                call.body(), call.timeout());
                                        return new PassthroughOutcome.Accepted(call.target().http().send(r));
                                    } catch (java.io.IOException e) {
                                        return new PassthroughOutcome.Failed(TransportError.of(e));
                                    }
                                }
                            };
                        }
                    });
                }
            }
            """;

    @TempDir
    Path dir;

    @TempDir
    Path scratch;

    @Test
    void messagesPassedThroughMidStreamEndTheUpstreamWithinTheBound() throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("relay-plugin.jar"),
                Map.of("module-info.java", MODULE_INFO, "relay/RelayPlugin.java", PLUGIN), List.of());
        try (MockUpstream upstream = MockUpstream.start();
                SluiceHarness sluice = new SluiceHarness(dir, SluiceConfig.DEFAULT_MAX_BODY_BYTES, Map.of(), Duration.ofSeconds(60))) {
            String connection = sluice.addConnection("{\"provider\":\"relay\",\"authType\":\"apikey\",\"apiKey\":\"sk-relay-0123456789abcdef\","
                    + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
            String key = sluice.addKey("{\"name\":\"it\"}");
            upstream.enqueue(MockResponse.stream().event(SseEvents.messageStart("relay-1")).event(SseEvents.textBlockStart(0))
                    .event(SseEvents.textDelta(0, "Hello")).thenHold());

            String body = "{\"model\":\"relay/relay-1\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), sluice.server.port())) {
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: " + key + "\r\nanthropic-version: 2023-06-01\r\n"
                        + "Content-Type: application/json\r\nContent-Length: " + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body)
                        .getBytes(StandardCharsets.UTF_8));
                out.flush();
                InputStream in = s.getInputStream();
                StringBuilder got = new StringBuilder();
                byte[] buf = new byte[4096];
                while (!got.toString().contains("Hello")) {
                    int n = in.read(buf);
                    assertThat(n).as("the answer ended early: " + got).isPositive();
                    got.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                }
                RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
                assertThat(sent.path()).as("passed through, not translated").isEqualTo("/v1/messages");
                s.close();
                assertThat(upstream.awaitClientGone(sent, ClientDisconnectIT.BOUND)).as("the upstream saw its connection closed").isTrue();
            }
            Awaitility.await().atMost(ClientDisconnectIT.BOUND).pollInterval(Duration.ofMillis(10)).until(() -> {
                for (var row : SluiceHarness.read(sluice.send("GET", "/api/rate-limits", SluiceHarness.ADMIN_KEY, null).body()).get("data")) {
                    if (row.get("connectionId").asText().equals(connection)) {
                        return row.get("running").asInt() == 0;
                    }
                }
                return false;
            });
        }
    }
}
