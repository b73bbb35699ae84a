package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sluice}'s commands (issue 18) run from the real zip: the admin commands against a
 * server started from the same zip, {@code doctor} on fresh and damaged data folders, and the
 * promise that no command but {@code serve} ever starts a server.
 */
class CommandLineIT {

    private static final String UPSTREAM_KEY = "sk-test-upstream-0123456789abcdef";
    private static final Pattern KEY_LINE = Pattern.compile("(?m)^key: (\\S+)$");
    private static final Pattern ID_LINE = Pattern.compile("(?m)^id:  (\\S+)$");

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

    /** One finished {@code bin/sluice} run. */
    record Run(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
        }
    }

    /** Runs {@code bin/sluice args} with only the given SLUICE_* variables and waits for it to end. */
    private Run sluice(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/sluice").toString());
        command.addAll(List.of(args));
        Path out = Files.createTempFile(work, "out", ".txt");
        Path err = Files.createTempFile(work, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().keySet().removeIf(k -> k.startsWith("SLUICE_"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(env);
        Process process = builder.start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("bin/sluice %s must end; stdout so far:%n%s", String.join(" ", args),
                    Files.readString(out)).isTrue();
        } finally {
            process.destroyForcibly();
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    private Map<String, String> adminEnv(SluiceClient client) {
        return Map.of("SLUICE_URL", client.base().toString(), "SLUICE_ADMIN_KEY", adminKey);
    }

    private SluiceClient startSluice() {
        return new SluiceClient(servers.start(home, SluiceProcess.env(work.resolve("data"), adminKey)));
    }

    @Test
    void providersListShowsConnectionsWithoutTheirKeysAndKeysCreateReturnsAWorkingKey() throws Exception {
        SluiceClient client = startSluice();
        String connectionId = client.createConnection(adminKey, "agentrouter", UPSTREAM_KEY, upstream.baseUrl() + "/v1");

        Run list = sluice(adminEnv(client), "providers", "list");
        assertThat(list.exit()).as(list::toString).isZero();
        List<String> lines = list.out().lines().toList();
        assertThat(lines.getFirst()).as(list::toString).matches("ID +PROVIDER +NAME +STATUS +PRIORITY");
        assertThat(lines).as(list::toString).hasSize(2);
        assertThat(lines.get(1).split(" +")).containsExactly(connectionId, "agentrouter", "agentrouter", "active", "1");
        // neither the key nor its masked form (first 3 and last 4 characters)
        assertThat(list.out()).doesNotContain(UPSTREAM_KEY).doesNotContain("cdef").doesNotContain("sk-");

        Run created = sluice(adminEnv(client), "keys", "create", "--name", "cli laptop");
        assertThat(created.exit()).as(created::toString).isZero();
        assertThat(created.out()).as(created::toString).startsWith("Created client key 'cli laptop'.\n")
                .contains("shown only this once");
        Matcher key = KEY_LINE.matcher(created.out());
        Matcher id = ID_LINE.matcher(created.out());
        assertThat(key.find()).as(created::toString).isTrue();
        assertThat(id.find()).as(created::toString).isTrue();
        assertThat(key.group(1)).startsWith("sk-sluice-");

        client.expect(client.get("/v1/models", key.group(1)), 200);
        JsonNode keys = client.expect(client.get("/api/keys", adminKey), 200);
        assertThat(SluiceClient.listed(keys, "id")).containsExactly(id.group(1));
        assertThat(SluiceClient.listed(keys, "name")).containsExactly("cli laptop");
    }

    @Test
    void cooldownsListShowsACoolingConnectionAndClearEndsItsCooldown() throws Exception {
        SluiceClient client = startSluice();
        String connectionId = client.createConnection(adminKey, "agentrouter", UPSTREAM_KEY, upstream.baseUrl() + "/v1");
        String clientKey = client.createKey(adminKey, "cooldowns");
        upstream.enqueue(MockResponse.json(429, "{\"error\":{\"message\":\"slow down\"}}").header("Retry-After", "600"));
        client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("agentrouter/claude-sonnet-4-5", false)), 429);
        assertThat(cooldownOf(client, connectionId).get("remainingMs").asLong()).isPositive();

        Run list = sluice(adminEnv(client), "cooldowns", "list");
        assertThat(list.exit()).as(list::toString).isZero();
        assertThat(list.out().lines().toList().getFirst())
                .matches("CONNECTION +PROVIDER +NAME +STATUS +COOLDOWN LEFT +BACKOFF +LAST ERROR +MODEL LOCKOUTS");
        String row = list.out().lines().filter(l -> l.startsWith(connectionId)).findFirst().orElseThrow(() -> new AssertionError(list));
        assertThat(row.split(" +")).as(row).startsWith(connectionId, "agentrouter", "agentrouter", "unavailable")
                .anyMatch(cell -> cell.matches("\\d+m")).contains("rate_limit_exceeded");

        Run unknown = sluice(adminEnv(client), "cooldowns", "clear", "no-such-connection");
        assertThat(unknown.exit()).as(unknown::toString).isEqualTo(1);
        assertThat(unknown.err()).contains("sluice: no connection with id no-such-connection");
        assertThat(cooldownOf(client, connectionId).get("remainingMs").asLong()).isPositive();

        Run clear = sluice(adminEnv(client), "cooldowns", "clear", connectionId);
        assertThat(clear.exit()).as(clear::toString).isZero();
        assertThat(clear.out()).startsWith("Cooldowns cleared: " + connectionId + "\n");
        assertThat(cooldownOf(client, connectionId).get("remainingMs").asLong()).isZero();
        assertThat(cooldownOf(client, connectionId).get("testStatus").asText()).isEqualTo("active");

        Run all = sluice(adminEnv(client), "cooldowns", "clear");
        assertThat(all.exit()).as(all::toString).isZero();
        assertThat(all.out()).startsWith("Cooldowns cleared: none\n").contains("Not cooling (unchanged): " + connectionId);
    }

    @Test
    void breakersResetClosesAnOpenBreaker() throws Exception {
        SluiceClient client = startSluice();
        String clientKey = client.createKey(adminKey, "breakers");
        // a custom provider's breaker (class apikey) set to open after 2 failures; failures of one
        // connection within 5 s count once, so two connections on the same host make two
        client.expect(client.patch("/api/resilience", adminKey,
                Map.of("circuitBreaker", Map.of("apikey", Map.of("failureThreshold", 2, "degradationThreshold", 1)))), 200);
        for (int i = 0; i < 2; i++) {
            client.createConnection(adminKey, "mockcli", UPSTREAM_KEY, upstream.baseUrl() + "/v1");
        }
        upstream.setDefault(MockResponse.status(503, "{\"error\":{\"message\":\"down\"}}"));
        client.post("/v1/chat/completions", clientKey, SluiceClient.chat("mockcli/any-model", false));
        assertThat(breakerState(client, "mockcli")).isEqualTo("OPEN");

        Run reset = sluice(adminEnv(client), "breakers", "reset", "mockcli");
        assertThat(reset.exit()).as(reset::toString).isZero();
        assertThat(reset.out()).isEqualTo("Reset 1 circuit breaker of provider mockcli.\n");
        assertThat(breakerState(client, "mockcli")).isEqualTo("CLOSED");

        client.post("/v1/chat/completions", clientKey, SluiceClient.chat("mockcli/any-model", false));
        assertThat(breakerState(client, "mockcli")).isEqualTo("OPEN");
        Run all = sluice(adminEnv(client), "breakers", "reset");
        assertThat(all.exit()).as(all::toString).isZero();
        assertThat(all.out()).matches("Reset \\d+ circuit breakers? of every provider; .*\n");
        assertThat(breakerState(client, "mockcli")).isEqualTo("CLOSED");
    }

    /**
     * Issue 27, point 3: the operator's way back for an account whose credit was refilled, run as
     * the operator guide teaches it ({@code bin/sluice connections reactivate ID}).
     */
    @Test
    void connectionsReactivateBringsACreditsExhaustedConnectionBackIntoRotation_issue27() throws Exception {
        SluiceClient client = startSluice();
        String connectionId = client.createConnection(adminKey, "mockcli", UPSTREAM_KEY, upstream.baseUrl() + "/v1");
        String clientKey = client.createKey(adminKey, "reactivate");
        upstream.enqueue(MockResponse.json(402, "{\"error\":{\"message\":\"Your credit balance is too low\"}}"));
        upstream.setDefault(MockResponse.completion("refilled"));
        client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("mockcli/any-model", false)), 402);
        assertThat(cooldownOf(client, connectionId).get("testStatus").asText()).isEqualTo("credits_exhausted");
        // terminal: the cooldown command leaves it alone, and no request reaches the upstream
        Run clear = sluice(adminEnv(client), "cooldowns", "clear", connectionId);
        assertThat(clear.out()).as(clear::toString).contains("Left alone, terminal state (banned, expired, credits exhausted): " + connectionId);
        client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("mockcli/any-model", false)), 404);
        assertThat(upstream.requestCount()).isEqualTo(1);

        Run unknown = sluice(adminEnv(client), "connections", "reactivate", "no-such-connection");
        assertThat(unknown.exit()).as(unknown::toString).isEqualTo(1);
        assertThat(unknown.err()).contains("sluice: no connection with id no-such-connection");

        Run reactivate = sluice(adminEnv(client), "connections", "reactivate", connectionId);
        assertThat(reactivate.exit()).as(reactivate::toString).isZero();
        assertThat(reactivate.out()).as(reactivate::toString).startsWith("Reactivated: " + connectionId + "\n");
        assertThat(cooldownOf(client, connectionId).get("testStatus").asText()).isEqualTo("active");
        JsonNode served = client.expect(client.post("/v1/chat/completions", clientKey, SluiceClient.chat("mockcli/any-model", false)), 200);
        assertThat(served.at("/choices/0/message/content").asText()).isEqualTo("refilled");

        Run again = sluice(adminEnv(client), "connections", "reactivate", connectionId);
        assertThat(again.exit()).as(again::toString).isZero();
        assertThat(again.out()).as(again::toString).startsWith("Reactivated: none\n")
                .contains("Not terminal (cooldowns cleared, nothing to reactivate): " + connectionId);
    }

    @Test
    void anErrorAnswerPrintsTheServersMessageAndExitsOne() throws Exception {
        SluiceClient client = startSluice();
        Run wrongKey = sluice(Map.of("SLUICE_URL", client.base().toString(), "SLUICE_ADMIN_KEY", "sk-not-the-admin-key"),
                "providers", "list");
        assertThat(wrongKey.exit()).as(wrongKey::toString).isEqualTo(1);
        assertThat(wrongKey.err()).startsWith("sluice: GET /api/providers: the server answered 401 invalid_api_key: ");
        assertThat(wrongKey.out()).isEmpty();

        Run noKey = sluice(Map.of("SLUICE_URL", client.base().toString()), "providers", "list");
        assertThat(noKey.exit()).as(noKey::toString).isEqualTo(2);
        assertThat(noKey.err()).contains("set SLUICE_ADMIN_KEY");
    }

    @Test
    void providersListWithNoServerRunningExitsOneAndOpensNoPort() throws Exception {
        int port = freePort();
        Path data = work.resolve("data");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SLUICE_URL", "http://127.0.0.1:" + port);
        env.put("SLUICE_ADMIN_KEY", adminKey);
        // were a server started by mistake, it would take this port and create this folder
        env.put("SLUICE_PORT", String.valueOf(port));
        env.put("SLUICE_DATA_DIR", data.toString());

        Run run = sluice(env, "providers", "list");

        assertThat(run.exit()).as(run::toString).isEqualTo(1);
        assertThat(run.err()).isEqualTo("sluice: cannot connect to Sluice at http://127.0.0.1:" + port
                + ": connection refused. Is the server running? (SLUICE_URL sets its address)\n");
        assertThat(run.out()).isEmpty();
        assertThat(data).doesNotExist();
        try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            assertThat(again.getLocalPort()).as("the port is still free").isEqualTo(port);
        }
    }

    @Test
    void unknownCommandsPrintTheUsageAndExitTwoWithoutServing() throws Exception {
        Path data = work.resolve("data");
        Run stop = sluice(Map.of("SLUICE_PORT", "0", "SLUICE_DATA_DIR", data.toString()), "stop");
        assertThat(stop.exit()).as(stop::toString).isEqualTo(2);
        assertThat(stop.err()).startsWith("sluice: unknown command: stop\n").contains("Usage: bin/sluice");
        assertThat(stop.out()).doesNotContain("listening");
        assertThat(data).doesNotExist();

        Run help = sluice(Map.of(), "--help");
        assertThat(help.exit()).as(help::toString).isZero();
        assertThat(help.out()).startsWith("Usage: bin/sluice").contains("doctor", "providers list", "breakers reset");
    }

    @Test
    void theOperatorGuideDocumentsEveryCommandTheUsageLists() throws Exception {
        Run help = sluice(Map.of(), "--help");
        List<String> commands = help.out().lines().dropWhile(l -> !l.equals("Commands:")).skip(1).takeWhile(l -> !l.isBlank())
                .filter(l -> l.matches("  \\S.*")).map(l -> l.strip().split(" {2,}")[0]).toList();
        assertThat(commands).as(help::toString).contains("serve", "doctor", "providers list", "keys create --name NAME");
        String guide = Files.readString(Path.of("..", "docs", "operator-guide.md"));
        String section = guide.substring(guide.indexOf("## 16. Command line"));
        for (String command : commands) {
            if (!command.startsWith("help")) {
                assertThat(section).as("operator guide § 16").contains("`bin/sluice " + command + "`");
            }
        }
        assertThat(section).contains("`SLUICE_URL`", "`SLUICE_ADMIN_KEY`", "http://127.0.0.1:20128");
    }

    @Test
    void doctorPassesOnAFreshDataDirAndStartsNothing() throws Exception {
        Path data = work.resolve("data");
        Run doctor = sluice(Map.of("SLUICE_DATA_DIR", data.toString()), "doctor");

        assertThat(doctor.exit()).as(doctor::toString).isZero();
        List<String> lines = doctor.out().lines().toList();
        assertThat(lines).as(doctor::toString)
                .anyMatch(l -> l.startsWith("ok   java: " + Runtime.version().feature()))
                .anyMatch(l -> l.startsWith("ok   config: " + home.resolve("conf/sluice.yaml") + " read"))
                .anyMatch(l -> l.equals("ok   data dir: " + data + " does not exist yet: the server creates it on first start"))
                .anyMatch(l -> l.equals("ok   database: sqlite " + data.resolve("sluice.db") + " does not exist yet: it will be created on first start"))
                .anyMatch(l -> l.startsWith("ok   plugin agentrouter: sluice-plugin-agentrouter-"))
                .anyMatch(l -> l.startsWith("ok   plugin opencode: "))
                .anyMatch(l -> l.startsWith("ok   plugin claude: "))
                .anyMatch(l -> l.startsWith("ok   plugin gemini: "))
                .anyMatch(l -> l.equals("ok   plugin codex: codex loaded, providers [codex]"))
                .noneMatch(l -> l.contains("listening"));
        assertThat(lines.getLast()).isEqualTo("doctor: 10 checks, 0 failed, 0 warnings");
        assertThat(doctor.err()).as("the plugin loader's log is quiet: doctor reports it").isEmpty();
        assertThat(data).doesNotExist();
    }

    @Test
    void doctorChecksTheDatabaseAServerLeftAndFailsOnACorruptedOne() throws Exception {
        Path data = work.resolve("data");
        SluiceProcess server = servers.start(home, SluiceProcess.env(data, adminKey));
        assertThat(server.stop()).isNotNegative();
        Path db = data.resolve("sluice.db");

        Run healthy = sluice(Map.of("SLUICE_DATA_DIR", data.toString()), "doctor");
        assertThat(healthy.exit()).as(healthy::toString).isZero();
        assertThat(healthy.out()).contains("ok   database: sqlite " + db + ": integrity ok, schema version ");

        Files.write(db, "this is not an SQLite database, whatever its name says".getBytes(StandardCharsets.UTF_8));
        // a write-ahead log left beside it (a stop whose last checkpoint did not run) would still hold page 1
        Files.deleteIfExists(db.resolveSibling("sluice.db-wal"));
        Files.deleteIfExists(db.resolveSibling("sluice.db-shm"));
        Run corrupted = sluice(Map.of("SLUICE_DATA_DIR", data.toString()), "doctor");
        assertThat(corrupted.exit()).as(corrupted::toString).isEqualTo(1);
        assertThat(corrupted.out()).containsPattern("(?m)^FAIL database: sqlite " + Pattern.quote(db.toString()) + ": .+$")
                .contains("doctor: 10 checks, 1 failed, 0 warnings");
    }

    private static String jwt(String payloadJson) {
        java.util.Base64.Encoder b64 = java.util.Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(payloadJson.getBytes(StandardCharsets.UTF_8)) + ".c2ln";
    }

    @Test
    void importReadsEachOfficialClisCredentialsFileFromItsDefaultPathIntoAnOAuthConnection_issue36() throws Exception {
        // nothing may call the providers' real hosts: no model discovery, and no request is sent to the connections
        Map<String, String> serverEnv = SluiceProcess.env(work.resolve("data"), adminKey);
        serverEnv.put("SLUICE_UPSTREAM_MODEL_DISCOVERY_INTERVAL_MS", "0");
        SluiceClient client = new SluiceClient(servers.start(home, serverEnv));
        Path userHome = Files.createDirectories(work.resolve("home"));
        Files.createDirectories(userHome.resolve(".claude"));
        Files.writeString(userHome.resolve(".claude/.credentials.json"), "{\"claudeAiOauth\":{\"accessToken\":\"sk-ant-oat01-import-aaaa\","
                + "\"refreshToken\":\"sk-ant-ort01-import-bbbb\",\"expiresAt\":4102444800000,\"scopes\":[\"user:inference\"],"
                + "\"subscriptionType\":\"max\"}}");
        Files.createDirectories(userHome.resolve(".codex"));
        Files.writeString(userHome.resolve(".codex/auth.json"), "{\"OPENAI_API_KEY\":null,\"tokens\":{\"id_token\":\""
                + jwt("{\"email\":\"codex@example.com\",\"https://api.openai.com/auth\":{\"chatgpt_plan_type\":\"pro\","
                        + "\"chatgpt_account_id\":\"acct-import-1\"}}")
                + "\",\"access_token\":\"" + jwt("{\"exp\":4102444800}") + "\",\"refresh_token\":\"rt-codex-import\","
                + "\"account_id\":\"acct-import-1\"},\"last_refresh\":\"2026-12-01T10:00:00Z\"}");
        Files.createDirectories(userHome.resolve(".gemini"));
        Files.writeString(userHome.resolve(".gemini/oauth_creds.json"), "{\"access_token\":\"ya29.import-gemini\",\"refresh_token\":"
                + "\"1//import-gemini\",\"scope\":\"https://www.googleapis.com/auth/cloud-platform openid\",\"token_type\":\"Bearer\","
                + "\"id_token\":\"" + jwt("{\"sub\":\"1\",\"email\":\"gemini@example.com\"}") + "\",\"expiry_date\":4102444800000}");
        Files.createDirectories(userHome.resolve(".qwen"));
        Files.writeString(userHome.resolve(".qwen/oauth_creds.json"), "{\"access_token\":\"qwen-import-access\",\"refresh_token\":"
                + "\"qwen-import-refresh\",\"token_type\":\"Bearer\",\"resource_url\":\"portal.qwen.ai\",\"expiry_date\":4102444800000}");
        Map<String, String> env = new LinkedHashMap<>(adminEnv(client));
        env.put("HOME", userHome.toString());

        for (String provider : List.of("claude", "codex", "gemini", "qwen")) {
            Run imported = sluice(env, "import", provider);
            assertThat(imported.exit()).as(imported::toString).isZero();
            assertThat(imported.out()).as(imported::toString).contains("Imported: connection ").doesNotContain("import-");
        }
        Run again = sluice(env, "import", "codex");
        assertThat(again.exit()).as(again::toString).isZero();

        JsonNode listed = client.expect(client.get("/api/providers", adminKey), 200);
        assertThat(SluiceClient.listed(listed, "provider")).as("the second codex import renewed its connection")
                .containsExactlyInAnyOrder("claude", "codex", "gemini", "qwen");
        Map<String, JsonNode> byProvider = new LinkedHashMap<>();
        listed.get("data").forEach(c -> byProvider.put(c.get("provider").asText(), c));
        assertThat(byProvider.values()).allSatisfy(c -> assertThat(c.get("authType").asText()).isEqualTo("oauth"));
        assertThat(byProvider.get("codex").at("/providerSpecificData/oauthAccount/identity").asText()).isEqualTo("acct-import-1");
        assertThat(byProvider.get("codex").at("/providerSpecificData/oauthAccount/plan").asText()).isEqualTo("pro");
        assertThat(byProvider.get("gemini").at("/providerSpecificData/oauthAccount/identity").asText()).isEqualTo("gemini@example.com");
        assertThat(byProvider.get("qwen").get("baseUrl").asText()).isEqualTo("https://portal.qwen.ai/v1");
        assertThat(listed.toString()).doesNotContain("import-aaaa").doesNotContain("import-bbbb").doesNotContain("rt-codex-import")
                .doesNotContain("ya29.import-gemini").doesNotContain("qwen-import-access");

        Files.writeString(userHome.resolve(".qwen/oauth_creds.json"), "{not json");
        Run malformed = sluice(env, "import", "qwen");
        assertThat(malformed.exit()).as(malformed::toString).isNotZero();
        assertThat(malformed.err().strip()).as(malformed::toString).contains(userHome.resolve(".qwen/oauth_creds.json").toString())
                .doesNotContain("\n");
    }

    private JsonNode cooldownOf(SluiceClient client, String connectionId) {
        for (JsonNode c : client.expect(client.get("/api/resilience/cooldowns", adminKey), 200).get("data")) {
            if (c.get("connectionId").asText().equals(connectionId)) {
                return c;
            }
        }
        throw new AssertionError("not listed: " + connectionId);
    }

    private String breakerState(SluiceClient client, String provider) {
        for (JsonNode b : client.expect(client.get("/api/monitoring/health", adminKey), 200).get("providerBreakers")) {
            if (b.get("provider").asText().equals(provider)) {
                return b.get("state").asText();
            }
        }
        throw new AssertionError("no breaker listed for " + provider);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
