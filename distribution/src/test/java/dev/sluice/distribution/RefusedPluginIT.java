package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27: a plugin refused for any reason never lets its traffic take the generic
 * OpenAI-compatible route. Connections made while the provider id was still a custom one are
 * answered {@code 503 provider_unavailable} naming the plugin and the reason once a broken JAR
 * for that id is in {@code plugins/}; new connections are refused {@code 400}; {@code
 * /api/plugins} lists each refusal with the providers it keeps claimed; and {@code bin/sluice
 * doctor} exits non-zero naming every one. Each broken JAR is built from the zip's
 * {@code sluice-api} JAR, as a third party would build it, and dropped into the real
 * {@code plugins/} folder.
 */
class RefusedPluginIT {

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();

    /** Provider id → the file or folder refused for it, and a phrase of its reason. */
    private static final Map<String, String[]> REFUSED = Map.of(
            "regex", new String[] {"regex-1.0.jar", "not a valid regular expression"},
            "late", new String[] {"late-1.0.jar", "threw from egressBucketing()"},
            "quiet", new String[] {"quiet-1.0.jar", "provides no dev.sluice.api.ProviderPlugin"},
            "shaded", new String[] {"shaded-1.0.jar", "bundles its own copy of the SPI module sluice.api"},
            "bundled", new String[] {"bundled", "bundles its own copy of the SPI module sluice.api"},
            "exec", new String[] {"exec-1.0.jar", "executor 'exec-chat' failed to start"});

    @Test
    void everyRefusedPluginsProvidersAnswer503AndRefuseNewConnectionsAndDoctorFails_issue27(@TempDir Path dir) throws Exception {
        Path home = Distribution.unpack(dir.resolve("zip"));
        Map<String, String> env = SluiceProcess.env(dir.resolve("data"), adminKey);
        try (MockUpstream upstream = MockUpstream.start()) {
            upstream.setDefault(MockResponse.completion("generic route"));
            // before the plugins arrive, each id is a custom OpenAI-compatible provider
            SluiceProcess first = servers.start(home, env);
            SluiceClient before = new SluiceClient(first);
            for (String provider : REFUSED.keySet()) {
                before.createConnection(adminKey, provider, "sk-" + provider + "-0123456789", upstream.baseUrl() + "/v1");
            }
            String key = before.createKey(adminKey, "refusals");
            before.expect(before.post("/v1/chat/completions", key, SluiceClient.chat("regex/m-1", false)), 200);
            first.stop();

            dropBrokenPlugins(home, dir.resolve("build"));
            int sentBefore = upstream.requestCount();
            SluiceProcess second = servers.start(home, env);
            SluiceClient client = new SluiceClient(second);

            for (Map.Entry<String, String[]> refused : REFUSED.entrySet()) {
                String provider = refused.getKey();
                String source = refused.getValue()[0];
                String why = refused.getValue()[1];
                HttpResponse<String> chat = client.post("/v1/chat/completions", key, SluiceClient.chat(provider + "/m-1", false));
                JsonNode error = client.expect(chat, 503).path("error");
                assertThat(error.path("code").asText()).as(chat::body).isEqualTo("provider_unavailable");
                assertThat(error.path("message").asText()).as(provider)
                        .contains("Provider '" + provider + "' is unavailable").contains("plugin source " + source + " was refused")
                        .contains(why);

                HttpResponse<String> create = client.post("/api/providers", adminKey, Map.of("provider", provider, "authType", "apikey",
                        "apiKey", "sk-new-0123456789", "baseUrl", upstream.baseUrl() + "/v1"));
                JsonNode refusal = client.expect(create, 400).path("error");
                assertThat(refusal.path("param").asText()).isEqualTo("provider");
                assertThat(refusal.path("message").asText()).contains("Provider '" + provider + "' cannot take connections")
                        .contains(source).contains(why);
            }
            assertThat(upstream.requestCount()).as("nothing of a refused plugin reaches the generic route").isEqualTo(sentBefore);

            JsonNode plugins = client.expect(client.get("/api/plugins", adminKey), 200);
            Map<String, JsonNode> failures = new HashMap<>();
            plugins.path("failures").forEach(f -> failures.put(f.path("source").asText(), f));
            for (Map.Entry<String, String[]> refused : REFUSED.entrySet()) {
                JsonNode failure = failures.get(refused.getValue()[0]);
                assertThat(failure).as("failure of %s in %s", refused.getValue()[0], plugins).isNotNull();
                assertThat(failure.path("reason").asText()).contains(refused.getValue()[1]);
                List<String> claimed = new ArrayList<>();
                failure.path("providers").forEach(id -> claimed.add(id.asText()));
                assertThat(claimed).as(failure::toString).contains(refused.getKey());
            }
            assertThat(failures.get("quiet-1.0.jar").path("providersGuessed").asBoolean()).isTrue();
            assertThat(failures.get("regex-1.0.jar").path("providersGuessed").asBoolean()).isFalse();
            // the console's health page (issue 33) renders those same fields: each refusal's reason and claimed providers
            HttpResponse<String> page = client.get("/ui/page-health.js", null);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("api('GET', '/api/plugins')").contains("plugins.failures").contains("${f.reason}")
                    .contains("Providers unavailable (503 provider_unavailable; new connections refused): ${f.providers.join(', ')}");
            assertThat(second.output()).containsPattern("Plugins from .*: \\d+ loaded \\[.*\\], 6 refused");
            second.stop();

            Run doctor = doctor(home, env, dir);
            assertThat(doctor.exit).as(doctor::toString).isNotZero();
            for (Map.Entry<String, String[]> refused : REFUSED.entrySet()) {
                assertThat(doctor.out).as(doctor::toString).containsPattern("(?m)^FAIL plugin " + refused.getValue()[0]
                        + ": refused: .*" + java.util.regex.Pattern.quote(refused.getValue()[1]));
            }
            assertThat(doctor.out).doesNotContainPattern("(?m)^ok +plugin exec");
        }
    }

    private record Run(int exit, String out) {
        @Override
        public String toString() {
            return "exit " + exit + "\n" + out;
        }
    }

    private static Run doctor(Path home, Map<String, String> env, Path dir) throws IOException, InterruptedException {
        Path out = Files.createTempFile(dir, "doctor", ".txt");
        ProcessBuilder builder = new ProcessBuilder(home.resolve("bin/sluice").toString(), "doctor").directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(out.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().keySet().removeIf(k -> k.startsWith("SLUICE_"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(env);
        Process process = builder.start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("doctor must end").isTrue();
        } finally {
            process.destroyForcibly();
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    /** One broken plugin per refusal reason, each built against the zip's sluice-api JAR. */
    private static void dropBrokenPlugins(Path home, Path build) throws IOException {
        Path api = apiJar(home);
        Path plugins = home.resolve("plugins");
        String rule = "List.of(new ErrorRule(\"bad\", \"regex\", 429, Map.of(\"x-why\", \"~(unclosed\"), List.of(),"
                + " FailureReason.RATE_LIMIT_EXCEEDED, LockScope.CONNECTION, null))";
        jar(api, build, "regex.plugin", "regex", "@Override public List<ErrorRule> errorRules() { return " + rule + "; }", true,
                plugins.resolve("regex-1.0.jar"));
        jar(api, build, "late.plugin", "late", "@Override public List<EgressBucketing> egressBucketing() {"
                + " throw new IllegalStateException(\"late failure\"); }", true, plugins.resolve("late-1.0.jar"));
        jar(api, build, "quiet.plugin", "quiet", "", false, plugins.resolve("quiet-1.0.jar"));
        Path shaded = jar(api, build, "shaded.plugin", "shaded", "", true, build.resolve("shaded-plain.jar"));
        Map<String, byte[]> entries = entries(shaded);
        entries(api).forEach((name, bytes) -> {
            if (name.startsWith("dev/")) {
                entries.put(name, bytes);
            }
        });
        write(plugins.resolve("shaded-1.0.jar"), entries);
        Path bundled = Files.createDirectories(plugins.resolve("bundled"));
        jar(api, build, "bundled.plugin", "bundled", "", true, bundled.resolve("bundled-plugin.jar"));
        Files.copy(api, bundled.resolve(api.getFileName()));
        jar(api, build, "exec.plugin", "exec", """
                @Override public List<ExecutorFactory> executors() {
                    return List.of(new ExecutorFactory() {
                        @Override public String name() { return "exec-chat"; }
                        @Override public ProviderExecutor create(HostContext host) { throw new IllegalStateException("no key file"); }
                    });
                }
                """, true, plugins.resolve("exec-1.0.jar"));
    }

    /** A plugin module serving one provider (on its own executor for "exec") plus the given members. */
    private static Path jar(Path api, Path build, String module, String provider, String members, boolean provides, Path jar)
            throws IOException {
        String pkg = module.replace(".plugin", "");
        Path src = build.resolve(module + "-src");
        Path classes = build.resolve(module + "-classes");
        Files.createDirectories(src.resolve(pkg));
        Files.writeString(src.resolve("module-info.java"), "module " + module + " {\n requires sluice.api;\n"
                + (provides ? " provides dev.sluice.api.ProviderPlugin with " + pkg + ".Broken;\n" : "") + "}\n");
        String executor = provider.equals("exec") ? "\"exec-chat\"" : "HostContext.OPENAI_COMPATIBLE";
        Files.writeString(src.resolve(pkg).resolve("Broken.java"), "package " + pkg + ";\n"
                + "import dev.sluice.api.*;\nimport dev.sluice.api.rules.*;\nimport java.util.*;\n"
                + "public final class Broken implements ProviderPlugin {\n"
                + " @Override public String name() { return \"" + provider + "\"; }\n"
                + " @Override public int spiVersion() { return SPI_VERSION; }\n"
                + " @Override public List<ProviderDescriptor> providers() { return List.of(ProviderDescriptor.builder(\"" + provider
                + "\").displayName(\"" + provider + "\").defaultClass(ProviderClass.APIKEY).defaultBaseUrl(\"https://" + provider
                + ".invalid/v1\").executor(" + executor + ").passthroughModels(true).build()); }\n" + members + "\n}\n");
        run("javac", "--release", "21", "--module-path", api.toString(), "-d", classes.toString(),
                src.resolve("module-info.java").toString(), src.resolve(pkg).resolve("Broken.java").toString());
        run("jar", "--create", "--file", jar.toString(), "-C", classes.toString(), ".");
        return jar;
    }

    private static Map<String, byte[]> entries(Path jar) throws IOException {
        Map<String, byte[]> entries = new java.util.TreeMap<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry e : java.util.Collections.list(file.entries())) {
                if (!e.isDirectory()) {
                    entries.put(e.getName(), file.getInputStream(e).readAllBytes());
                }
            }
        }
        return entries;
    }

    private static void write(Path jar, Map<String, byte[]> entries) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                out.putNextEntry(new JarEntry(e.getKey()));
                out.write(e.getValue());
                out.closeEntry();
            }
        }
    }

    private static Path apiJar(Path home) throws IOException {
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            return lib.filter(p -> p.getFileName().toString().matches("sluice-api-.*\\.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no lib/sluice-api-*.jar in " + home));
        }
    }

    private static void run(String tool, String... args) {
        ToolProvider provider = ToolProvider.findFirst(tool).orElseThrow(() -> new AssertionError(tool + " is not available"));
        StringWriter out = new StringWriter();
        try (PrintWriter pw = new PrintWriter(out)) {
            int rc = provider.run(pw, pw, args);
            pw.flush();
            List<String> command = new ArrayList<>(List.of(args));
            assertThat(rc).as("%s %s\n%s", tool, command, out).isZero();
        }
    }
}
