package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.engine.discovery.DiscoverySelectors;

/**
 * Docs are code (issue 17): every Java block of the zip's {@code sdk/plugin-guide.md} is compiled
 * against the zip's {@code sdk/} JARs alone (plus JUnit and AssertJ for the test blocks), and the
 * guide's tests are run. Blocks are grouped by package; variant A (sections 1–4) and variant B
 * (section 5 on) of the Acme example are separate compilations, since both define
 * {@code AcmePlugin}. {@code module-info.java} blocks are left out of those class-path
 * compilations; the reseller test compiles its group as a module and runs it in the zip's server.
 */
class PluginGuideIT {

    @org.junit.jupiter.api.extension.RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern SECTION = Pattern.compile("(?m)^## (\\d+)\\.");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern TYPE = Pattern.compile("(?m)^(?:public )?(?:final )?(?:abstract )?(?:class|record|interface|enum) (\\w+)");

    @Test
    void everyJavaBlockOfThePluginGuideCompilesAgainstTheSdkAndItsTestsPass_issue17(@TempDir Path dir) throws Exception {
        Path home = Distribution.unpack(dir.resolve("zip"));
        Path sdk = home.resolve("sdk");
        String guide = Files.readString(sdk.resolve("plugin-guide.md"));

        Map<String, Map<String, String>> groups = groups(guide);
        assertThat(groups).as("the guide's example groups").containsKeys("com.example.sluice.acme/A", "com.example.sluice.acme/B",
                "com.example.sluice.reseller/B");

        List<String> classPath = new ArrayList<>(jars(sdk));
        // the test blocks use JUnit and AssertJ, as a plugin's pom would declare them
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (name.startsWith("junit-jupiter-api") || name.startsWith("assertj-core") || name.startsWith("apiguardian")
                    || name.startsWith("opentest4j") || name.startsWith("junit-platform-commons")) {
                classPath.add(entry);
            }
        }
        int testsRun = 0;
        for (Map.Entry<String, Map<String, String>> group : groups.entrySet()) {
            Path out = compile(dir.resolve("build").resolve(group.getKey().replace('/', '-')), group.getValue(), classPath);
            testsRun += runTests(out, group.getValue().keySet());
        }
        assertThat(testsRun).as("tests the guide's blocks contain").isGreaterThanOrEqualTo(4);
    }

    /**
     * Issue 17's "done when": the guide's reseller (a header, a body tweak, a restatement rule and
     * two error rules, no executor of its own) built from the guide alone against {@code sdk/},
     * dropped into {@code plugins/}, serves its provider.
     */
    @Test
    void theGuidesResellerBuiltFromTheSdkServesThroughTheZip_issue17(@TempDir Path dir) throws Exception {
        Path home = Distribution.unpack(dir.resolve("zip"));
        Path sdk = home.resolve("sdk");
        Map<String, String> sources = new LinkedHashMap<>(groups(Files.readString(sdk.resolve("plugin-guide.md")))
                .get("com.example.sluice.reseller/B"));
        sources.keySet().removeIf(f -> f.endsWith("Test.java"));
        long mainLines = sources.values().stream().mapToLong(src -> src.lines().count()).sum();
        assertThat(mainLines).as("main code of the reseller, written from the guide").isLessThan(150);
        sources.put("module-info.java", """
                module com.example.sluice.reseller {
                    requires sluice.api;
                    provides dev.sluice.api.ProviderPlugin with com.example.sluice.reseller.ResellerPlugin;
                }
                """);
        Path src = dir.resolve("reseller-src");
        Path classes = Files.createDirectories(dir.resolve("reseller-classes"));
        List<String> args = new ArrayList<>(List.of("--release", "21", "--module-path",
                jars(sdk).stream().filter(j -> Path.of(j).getFileName().toString().startsWith("sluice-api-")).findFirst().orElseThrow(),
                "-d", classes.toString()));
        for (Map.Entry<String, String> e : sources.entrySet()) {
            Path file = src.resolve(e.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, e.getValue());
            args.add(file.toString());
        }
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        assertThat(ToolProvider.getSystemJavaCompiler().run(null, log, log, args.toArray(String[]::new))).as(log::toString).isZero();
        int rc = java.util.spi.ToolProvider.findFirst("jar").orElseThrow().run(System.out, System.err, "--create", "--file",
                home.resolve("plugins").resolve("reseller-1.0.jar").toString(), "-C", classes.toString(), ".");
        assertThat(rc).isZero();

        String adminKey = "sk-admin-" + java.util.UUID.randomUUID();
        try (dev.sluice.testkit.MockUpstream upstream = dev.sluice.testkit.MockUpstream.start()) {
            SluiceClient client = new SluiceClient(servers.start(home, SluiceProcess.env(dir.resolve("data"), adminKey)));
            com.fasterxml.jackson.databind.JsonNode plugins = client.expect(client.get("/api/plugins", adminKey), 200);
            assertThat(plugins.at("/failures").size()).as(plugins::toString).isZero();
            assertThat(plugins.toString()).contains("\"credit-gone\"").contains("\"scopeHonoured\":true");

            // issue 27: the connection's account id reaches the upstream through the guide's computed header
            String connection = client.expect(client.post("/api/providers", adminKey, Map.of("provider", "reseller", "authType", "apikey",
                    "apiKey", "sk-reseller-0123456789", "baseUrl", upstream.baseUrl() + "/v1",
                    "providerSpecificData", Map.of("org", "o-7"))), 201).path("id").asText();
            String key = client.createKey(adminKey, "guide");
            upstream.enqueue(dev.sluice.testkit.MockResponse.completion("resold"));
            java.net.http.HttpResponse<String> answer = client.post("/v1/chat/completions", key, SluiceClient.chat("reseller/r-1", false));

            assertThat(client.expect(answer, 200).at("/choices/0/message/content").asText()).isEqualTo("resold");
            dev.sluice.testkit.RecordedRequest sent = upstream.takeRequest(java.time.Duration.ofSeconds(5));
            assertThat(sent.header("x-reseller-client")).isEqualTo("sluice");
            assertThat(sent.header("x-reseller-org")).isEqualTo("o-7");

            // issue 27: the guide's own-provider rule outranks the built-in "out of credit" text: a one-hour
            // cooldown, not a terminal state
            upstream.enqueue(dev.sluice.testkit.MockResponse.json(402, "{\"error\":{\"code\":\"credit_exhausted\"}}"));
            assertThat(client.post("/v1/chat/completions", key, SluiceClient.chat("reseller/r-1", false)).statusCode()).isNotEqualTo(200);
            com.fasterxml.jackson.databind.JsonNode state = null;
            for (com.fasterxml.jackson.databind.JsonNode c : client.expect(client.get("/api/resilience/cooldowns", adminKey), 200).path("data")) {
                if (c.path("connectionId").asText().equals(connection)) {
                    state = c;
                }
            }
            assertThat(state).as("cooldown of the reseller connection").isNotNull();
            assertThat(state.path("testStatus").asText()).as(state::toString).isEqualTo("unavailable");
            assertThat(state.path("remainingMs").asLong()).as(state::toString).isGreaterThan(3_000_000L);
            assertThat(SluiceClient.JSON.readTree(sent.body()).path("service_tier").asText()).isEqualTo("flex");
        }
    }

    /** Java blocks by "package/variant", each block keyed by its file name. */
    private static Map<String, Map<String, String>> groups(String guide) {
        Map<String, Map<String, String>> groups = new LinkedHashMap<>();
        Matcher block = BLOCK.matcher(guide);
        while (block.find()) {
            String source = block.group(1);
            Matcher pkg = PACKAGE.matcher(source);
            Matcher type = TYPE.matcher(source);
            if (!pkg.find() || !type.find()) {
                continue; // module-info.java
            }
            String variant = section(guide, block.start()) < 5 ? "A" : "B";
            String key = pkg.group(1) + "/" + variant;
            String file = pkg.group(1).replace('.', '/') + "/" + type.group(1) + ".java";
            String previous = groups.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(file, source);
            assertThat(previous).as("two blocks define " + file + " in " + key).isNull();
        }
        return groups;
    }

    private static int section(String guide, int offset) {
        Matcher m = SECTION.matcher(guide.substring(0, offset));
        int section = 0;
        while (m.find()) {
            section = Integer.parseInt(m.group(1));
        }
        return section;
    }

    private static List<String> jars(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(Path::toString).filter(f -> f.endsWith(".jar") && !f.endsWith("-javadoc.jar")).sorted().toList();
        }
    }

    private static Path compile(Path root, Map<String, String> sources, List<String> classPath) throws IOException {
        Path src = root.resolve("src");
        Path out = Files.createDirectories(root.resolve("classes"));
        List<String> args = new ArrayList<>(List.of("--release", "21", "-d", out.toString(), "-cp", String.join(File.pathSeparator, classPath),
                "-Xlint:deprecation", "-Werror"));
        for (Map.Entry<String, String> s : sources.entrySet()) {
            Path file = src.resolve(s.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, s.getValue());
            args.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        int rc = javac.run(null, log, log, args.toArray(String[]::new));
        assertThat(rc).as("javac on the guide's blocks " + sources.keySet() + ":\n" + log).isZero();
        return out;
    }

    /** Runs the test classes (those whose source imports JUnit) with the server's classes at hand. */
    private static int runTests(Path classes, Iterable<String> files) throws Exception {
        List<String> tests = new ArrayList<>();
        for (String f : files) {
            if (f.endsWith("Test.java")) {
                tests.add(f.substring(0, f.length() - ".java".length()).replace('/', '.'));
            }
        }
        if (tests.isEmpty()) {
            return 0;
        }
        // parent: this test's class path, which holds the runtime, the kits and JUnit (one copy of each)
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()}, PluginGuideIT.class.getClassLoader())) {
            LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
            for (String t : tests) {
                request.selectors(DiscoverySelectors.selectClass(loader.loadClass(t)));
            }
            LauncherDiscoveryRequest built = request.build();
            Launcher launcher = LauncherFactory.create();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            ClassLoader previous = Thread.currentThread().getContextClassLoader();
            Thread.currentThread().setContextClassLoader(loader);
            try {
                launcher.execute(built, listener);
            } finally {
                Thread.currentThread().setContextClassLoader(previous);
            }
            TestExecutionSummary summary = listener.getSummary();
            StringWriter failures = new StringWriter();
            summary.printFailuresTo(new java.io.PrintWriter(failures), 20);
            assertThat(summary.getTotalFailureCount()).as("the guide's tests " + tests + ":\n" + failures).isZero();
            assertThat(summary.getTestsSucceededCount()).as("tests run in " + tests).isPositive();
            return (int) summary.getTestsSucceededCount();
        }
    }
}
