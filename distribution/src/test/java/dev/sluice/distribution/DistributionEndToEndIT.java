package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real zip, unpacked and started with {@code bin/sluice} as an operator would (SPEC SH-1,
 * SH-2, SH-4, SH-5, PA-1): its layout, a request through a shipped plugin, and a third-party
 * plugin dropped into {@code plugins/}.
 */
class DistributionEndToEndIT {

    private static final String UPSTREAM_KEY = "sk-test-0123456789abcdef";

    /** One unpacked zip for the class; each test gets its own data folder and server. */
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

    private SluiceClient startSluice() {
        return new SluiceClient(servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey)));
    }

    @Test
    void zipHasBinLibPluginsConfAndReadme_SH1() throws IOException {
        try (FileSystem zip = Distribution.open()) {
            // One top folder, named like the zip: sluice-<version>/
            assertThat(Distribution.topFolderName()).matches("sluice-\\d.*");
            assertThat(names(zip.getPath("/"))).containsExactly(Distribution.topFolderName());
            Path top = zip.getPath("/", Distribution.topFolderName());

            Path script = top.resolve("bin/sluice");
            assertThat(script).isRegularFile();
            assertThat(Distribution.permissions(script)).as("bin/sluice mode in the zip")
                    .contains(PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.GROUP_EXECUTE,
                            PosixFilePermission.OTHERS_EXECUTE);
            assertThat(Files.readString(script)).startsWith("#!/bin/sh\n").doesNotContain("\r");
            assertThat(top.resolve("bin/sluice.bat")).isRegularFile();
            assertThat(top.resolve("conf/sluice.yaml")).isRegularFile();
            assertThat(top.resolve("README.txt")).isRegularFile();
            // issue 33: the dashboard's vendored scripts with their versions and licences
            assertThat(Files.readString(top.resolve("THIRD-PARTY-NOTICES.txt"))).contains("preact 10.28.4").contains("htm 3.1.1")
                    .contains("uplot 1.6.32").contains("The MIT License").contains("Apache License");

            List<String> lib = names(top.resolve("lib"));
            assertThat(lib).anyMatch(n -> n.matches("sluice-runtime-.*\\.jar"))
                    .anyMatch(n -> n.matches("sluice-api-.*\\.jar"))
                    .anyMatch(n -> n.startsWith("helidon-webserver-"))
                    .anyMatch(n -> n.startsWith("jackson-databind-"))
                    .anyMatch(n -> n.startsWith("snakeyaml-"))
                    .anyMatch(n -> n.startsWith("sqlite-jdbc-"))
                    .noneMatch(n -> n.contains("plugin"))
                    .noneMatch(n -> n.contains("testkit") || n.contains("junit") || n.contains("assertj"))
                    .allMatch(n -> n.endsWith(".jar"));

            assertThat(names(top.resolve("plugins")))
                    .anyMatch(n -> n.matches("sluice-plugin-agentrouter-.*\\.jar"))
                    .anyMatch(n -> n.matches("sluice-plugin-opencode-.*\\.jar"))
                    .contains("claude", "gemini", "codex")
                    .allMatch(n -> n.matches("sluice-plugin-[a-z]+-.*\\.jar|claude|gemini|codex"));
            // sdk/: what a plugin author needs (issue 17)
            assertThat(names(top.resolve("sdk")))
                    .anyMatch(n -> n.matches("sluice-api-[0-9].*(?<!javadoc)\\.jar"))
                    .anyMatch(n -> n.matches("sluice-api-.*-javadoc\\.jar"))
                    .anyMatch(n -> n.matches("sluice-toolkit-.*\\.jar"))
                    .anyMatch(n -> n.matches("sluice-plugin-testkit-.*\\.jar"))
                    .anyMatch(n -> n.matches("sluice-testkit-.*\\.jar"))
                    .contains("plugin-guide.md", "README.md", "api.md", "combos.md", "resilience.md", "operator-guide.md", "providers");
            // issue 27: every document the guide links is shipped beside it
            java.util.regex.Matcher link = java.util.regex.Pattern.compile("\\]\\(([A-Za-z0-9_./-]+\\.md)(#[^)]*)?\\)")
                    .matcher(Files.readString(top.resolve("sdk/plugin-guide.md")));
            int links = 0;
            while (link.find()) {
                links++;
                assertThat(top.resolve("sdk").resolve(link.group(1))).as("sdk/plugin-guide.md links " + link.group(1)).isRegularFile();
            }
            assertThat(links).isGreaterThan(5);
            assertThat(Files.readString(top.resolve("sdk/README.md"))).doesNotContain("${project.version}");
            // the plugins that bundle the toolkit: each folder a layer with its own copy
            for (String folder : List.of("claude", "gemini", "codex")) {
                assertThat(names(top.resolve("plugins").resolve(folder)))
                        .anyMatch(n -> n.matches("sluice-plugin-" + folder + "-.*\\.jar"))
                        .anyMatch(n -> n.matches("sluice-toolkit-.*\\.jar"))
                        .hasSize(2);
            }
        }
        assertThat(Files.isExecutable(home.resolve("bin/sluice"))).as("bin/sluice executable once unpacked").isTrue();
    }

    @Test
    void anArgumentIsRefusedWithTheUsageInsteadOfStartingASecondServer() throws Exception {
        ProcessBuilder stop = new ProcessBuilder(home.resolve("bin/sluice").toString(), "stop")
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        stop.environment().keySet().removeIf(k -> k.startsWith("SLUICE_"));
        stop.environment().put("JAVA_HOME", System.getProperty("java.home"));
        stop.environment().put("SLUICE_PORT", "0");
        Process process = stop.start();
        boolean ended = process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(ended).as("bin/sluice stop must end, not serve: %s", output).isTrue();
        assertThat(process.exitValue()).isEqualTo(2);
        assertThat(output).contains("sluice: unknown command: stop").contains("Usage: bin/sluice")
                .doesNotContain("listening");
    }

    @Test
    void proxiesAChatCompletionThroughTheShippedAgentrouterPlugin_SH2_SH4() throws Exception {
        SluiceClient client = startSluice();
        upstream.enqueue(MockResponse.completion("hello from the mock"));

        String connectionId = client.createConnection(adminKey, "agentrouter", UPSTREAM_KEY, upstream.baseUrl() + "/v1");
        String key = client.createKey(adminKey, "e2e");

        HttpResponse<String> response = client.post("/v1/chat/completions", key,
                SluiceClient.chat("agentrouter/claude-sonnet-4-5", false));
        JsonNode body = client.expect(response, 200);
        assertThat(body.at("/choices/0/message/content").asText()).isEqualTo("hello from the mock");
        assertThat(response.headers().firstValue("X-Sluice-Provider")).hasValue("agentrouter");
        assertThat(response.headers().firstValue("X-Sluice-Connection-Id")).hasValue(connectionId);
        assertThat(response.headers().firstValue("X-Request-Id")).isPresent();

        RecordedRequest upstreamRequest = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(upstreamRequest).as("the mock upstream got the request").isNotNull();
        assertThat(upstreamRequest.path()).isEqualTo("/v1/chat/completions");
        assertThat(upstreamRequest.header("authorization")).isEqualTo("Bearer " + UPSTREAM_KEY);
        assertThat(SluiceClient.JSON.readTree(upstreamRequest.body()).path("model").asText()).isEqualTo("claude-sonnet-4-5");

        JsonNode plugins = client.expect(client.get("/api/plugins", adminKey), 200);
        assertThat(SluiceClient.listed(plugins, "name")).contains("agentrouter", "opencode", "claude", "gemini");
    }

    @Test
    void aThirdPartyPluginDroppedIntoPluginsServesItsProvider_PA1() throws Exception {
        // Into the class's shared unpacked plugins/: the other tests here only ask for "at least".
        ThirdPartyPlugin.build(home, work, home.resolve("plugins").resolve("acme-plugin-1.0.jar"));
        SluiceClient client = startSluice();

        JsonNode plugins = client.expect(client.get("/api/plugins", adminKey), 200);
        assertThat(SluiceClient.listed(plugins, "name")).as(plugins::toString).contains("acme", "agentrouter", "opencode");

        String connectionId = client.createConnection(adminKey, ThirdPartyPlugin.PROVIDER, UPSTREAM_KEY,
                upstream.baseUrl() + "/v1");
        String key = client.createKey(adminKey, "acme-e2e");
        String model = ThirdPartyPlugin.PROVIDER + "/" + ThirdPartyPlugin.MODEL;

        JsonNode models = client.expect(client.get("/v1/models", key), 200);
        assertThat(SluiceClient.listed(models, "id")).contains(model);

        upstream.enqueue(MockResponse.completion("acme says hi"));
        HttpResponse<String> response = client.post("/v1/chat/completions", key, SluiceClient.chat(model, false));
        assertThat(client.expect(response, 200).at("/choices/0/message/content").asText()).isEqualTo("acme says hi");
        assertThat(response.headers().firstValue("X-Sluice-Provider")).hasValue(ThirdPartyPlugin.PROVIDER);
        assertThat(response.headers().firstValue("X-Sluice-Connection-Id")).hasValue(connectionId);
        RecordedRequest plain = upstream.takeRequest(Duration.ofSeconds(5));
        assertThat(plain).isNotNull();
        assertThat(plain.path()).isEqualTo("/v1/chat/completions");
        assertThat(SluiceClient.JSON.readTree(plain.body()).path("model").asText()).isEqualTo(ThirdPartyPlugin.MODEL);

        upstream.enqueue(MockResponse.chatStream(List.of("Hel", "lo"), Duration.ofMillis(50)));
        HttpResponse<String> stream = client.post("/v1/chat/completions", key, SluiceClient.chat(model, true));
        assertThat(stream.statusCode()).as(() -> client.describe(stream)).isEqualTo(200);
        assertThat(stream.headers().firstValue("Content-Type")).as(() -> client.describe(stream))
                .hasValueSatisfying(ct -> assertThat(ct).startsWith("text/event-stream"));
        List<String> data = stream.body().lines().filter(l -> l.startsWith("data: ")).map(l -> l.substring(6)).toList();
        assertThat(data).as(stream::body).isNotEmpty();
        assertThat(data.getLast()).as(stream::body).isEqualTo("[DONE]");
        StringBuilder content = new StringBuilder();
        for (String event : data.subList(0, data.size() - 1)) {
            content.append(SluiceClient.JSON.readTree(event).at("/choices/0/delta/content").asText(""));
        }
        assertThat(content).as(stream::body).hasToString("Hello");
    }

    private static List<String> names(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> list = Files.list(dir)) {
            list.forEach(p -> names.add(p.getFileName().toString().replaceAll("/$", "")));
        }
        return names;
    }
}
