package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.plugin.PluginJars;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 36: a third-party plugin that contributes nothing but a login description gets the admin
 * login API; its endpoints are pointed at a loopback mock authorization server by the standard
 * plugin settings.
 */
class OAuthLoginIT {

    static final String MODULE_INFO = """
            module acme.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with acme.AcmePlugin;
            }
            """;

    static final String PLUGIN = """
            package acme;

            import dev.sluice.api.*;
            import dev.sluice.api.oauth.*;
            import java.util.*;

            public final class AcmePlugin implements ProviderPlugin {
                public AcmePlugin() { }
                @Override public String name() { return "acme"; }
                @Override public int spiVersion() { return SPI_VERSION; }
                @Override public List<ProviderDescriptor> providers() {
                    return List.of(ProviderDescriptor.openAiCompatible("acme", "Acme", ProviderClass.OAUTH,
                            "https://api.acme.invalid/v1", List.of(ModelInfo.chat("acme-1"))));
                }
                @Override public List<OAuthLogin> oauthLogins() {
                    return List.of(OAuthLogin.builder("acme").flows(OAuthFlow.PKCE)
                            .authorizeUrl("https://auth.acme.invalid/authorize").tokenUrl("https://auth.acme.invalid/token")
                            .clientId("acme-cli").redirectUri("https://auth.acme.invalid/code")
                            .accountMapper(a -> OAuthAccount.standard(a).email(a.string("email")).build()).build());
                }
            }
            """;

    @TempDir
    Path dir;

    @TempDir
    Path scratch;

    private static Map<String, String> query(String url) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String pair : URI.create(url).getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static Map<String, String> form(String body) {
        return query("http://x/?" + body);
    }

    private static String s256(String verifier) throws Exception {
        byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    }

    /** A second third-party plugin whose only login is RFC 8628's device flow. */
    static final String DEVICE_MODULE_INFO = """
            module beta.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with beta.BetaPlugin;
            }
            """;

    static final String DEVICE_PLUGIN = """
            package beta;

            import dev.sluice.api.*;
            import dev.sluice.api.oauth.*;
            import java.util.*;

            public final class BetaPlugin implements ProviderPlugin {
                public BetaPlugin() { }
                @Override public String name() { return "beta"; }
                @Override public int spiVersion() { return SPI_VERSION; }
                @Override public List<ProviderDescriptor> providers() {
                    return List.of(ProviderDescriptor.openAiCompatible("beta", "Beta", ProviderClass.OAUTH,
                            "https://api.beta.invalid/v1", List.of(ModelInfo.chat("beta-1"))));
                }
                @Override public List<OAuthLogin> oauthLogins() {
                    return List.of(OAuthLogin.builder("beta").flows(OAuthFlow.DEVICE)
                            .deviceUrl("https://auth.beta.invalid/device").tokenUrl("https://auth.beta.invalid/token")
                            .clientId("beta-cli").scopes(List.of("inference"))
                            .accountMapper(a -> OAuthAccount.standard(a).email(a.string("email")).build()).build());
                }
            }
            """;

    private SluiceHarness startDevice(MockUpstream auth) throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("beta-plugin.jar"),
                Map.of("module-info.java", DEVICE_MODULE_INFO, "beta/BetaPlugin.java", DEVICE_PLUGIN), List.of());
        return new SluiceHarness(dir, SluiceConfig.DEFAULT_MAX_BODY_BYTES, Map.of("beta", Map.of(
                "oauthDeviceUrl", auth.baseUrl() + "/device", "oauthTokenUrl", auth.baseUrl() + "/token",
                "oauthClientId", "beta-from-settings", "upstreamBaseUrl", auth.baseUrl() + "/v1")));
    }

    @Test
    void deviceLoginWaitsOutTwoAuthorizationPendingAndASlowDownAndConnects() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); SluiceHarness sluice = startDevice(auth)) {
            auth.enqueue(MockResponse.json(200, "{\"device_code\":\"dc-secret-0123456789\",\"user_code\":\"BETA-4242\","
                    + "\"verification_uri\":\"https://auth.beta.invalid/activate\",\"expires_in\":600,\"interval\":5}"));
            HttpResponse<String> started = sluice.send("POST", "/api/oauth/beta/start", ADMIN_KEY, "{\"name\":\"beta-device\"}");
            assertThat(started.statusCode()).as(started.body()).isEqualTo(200);
            JsonNode flow = read(started.body());
            assertThat(flow.get("type").asText()).isEqualTo("device");
            assertThat(flow.get("userCode").asText()).isEqualTo("BETA-4242");
            assertThat(flow.get("verificationUri").asText()).isEqualTo("https://auth.beta.invalid/activate");
            assertThat(started.body()).doesNotContain("dc-secret-0123456789");
            RecordedRequest deviceRequest = auth.takeRequest(Duration.ofSeconds(5));
            assertThat(deviceRequest.path()).isEqualTo("/device");
            assertThat(form(deviceRequest.body())).containsEntry("client_id", "beta-from-settings").containsEntry("scope", "inference");
            String path = "/api/oauth/flows/" + flow.get("flowId").asText();
            auth.enqueue(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
            auth.enqueue(MockResponse.json(400, "{\"error\":\"authorization_pending\"}"));
            auth.enqueue(MockResponse.json(400, "{\"error\":\"slow_down\"}"));
            auth.enqueue(MockResponse.json(200, tokenAnswer("access-token-device-0123456789", "device@example.com")));

            assertThat(read(sluice.send("GET", path, ADMIN_KEY, null).body()).get("status").asText()).isEqualTo("pending");
            assertThat(auth.requestCount()).as("no poll before the 5 s interval").isEqualTo(1);
            for (int i = 1; i <= 3; i++) {
                sluice.clock.advance(Duration.ofSeconds(5));
                assertThat(read(sluice.send("GET", path, ADMIN_KEY, null).body()).get("status").asText()).isEqualTo("pending");
                assertThat(read(sluice.send("GET", path, ADMIN_KEY, null).body()).get("status").asText()).isEqualTo("pending");
                assertThat(auth.requestCount()).as("one poll per interval however often the status is read").isEqualTo(1 + i);
            }
            sluice.clock.advance(Duration.ofSeconds(5));
            assertThat(read(sluice.send("GET", path, ADMIN_KEY, null).body()).get("status").asText()).isEqualTo("pending");
            assertThat(auth.requestCount()).as("slow_down made the interval 10 s").isEqualTo(4);
            sluice.clock.advance(Duration.ofSeconds(5));
            JsonNode done = read(sluice.send("GET", path, ADMIN_KEY, null).body());

            assertThat(done.get("status").asText()).as(done::toString).isEqualTo("connected");
            for (int i = 0; i < 4; i++) {
                assertThat(form(auth.takeRequest(Duration.ofSeconds(5)).body()))
                        .containsEntry("grant_type", "urn:ietf:params:oauth:grant-type:device_code")
                        .containsEntry("device_code", "dc-secret-0123456789").containsEntry("client_id", "beta-from-settings");
            }
            JsonNode connection = read(sluice.send("GET", "/api/providers/" + done.get("connectionId").asText(), ADMIN_KEY, null).body());
            assertThat(connection.get("provider").asText()).isEqualTo("beta");
            assertThat(connection.get("authType").asText()).isEqualTo("oauth");
            assertThat(connection.get("name").asText()).isEqualTo("beta-device");
            assertThat(connection.toString()).contains("device@example.com").doesNotContain("access-token-device-0123456789");
        }
    }

    private SluiceHarness start(MockUpstream auth) throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("acme-plugin.jar"),
                Map.of("module-info.java", MODULE_INFO, "acme/AcmePlugin.java", PLUGIN), List.of());
        return new SluiceHarness(dir, SluiceConfig.DEFAULT_MAX_BODY_BYTES, Map.of("acme", Map.of(
                "oauthAuthorizeUrl", auth.baseUrl() + "/authorize", "oauthTokenUrl", auth.baseUrl() + "/token",
                "oauthClientId", "client-from-settings", "oauthScopes", "a b",
                "upstreamBaseUrl", auth.baseUrl() + "/v1")));
    }

    private static String tokenAnswer(String access, String email) {
        return "{\"access_token\":\"" + access + "\",\"refresh_token\":\"rt-" + access + "\",\"expires_in\":3600,\"email\":\"" + email + "\"}";
    }

    @Test
    void theProvidersWithALoginAreListedWithTheirFlows_issue33() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            assertThat(sluice.send("GET", "/api/oauth/providers", null, null).statusCode()).isEqualTo(401);
            HttpResponse<String> r = sluice.send("GET", "/api/oauth/providers", ADMIN_KEY, null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(read(r.body()).get("data").toString()).isEqualTo("[{\"provider\":\"acme\",\"flows\":[\"pkce\"]}]");
        }
    }

    @Test
    void pkceLoginThroughTheCallbackCreatesAnOAuthConnectionWithMaskedTokens() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            assertThat(sluice.send("POST", "/api/oauth/acme/start", null, "{}").statusCode()).isEqualTo(401);
            HttpResponse<String> started = sluice.send("POST", "/api/oauth/acme/start", ADMIN_KEY, "{\"name\":\"team\",\"priority\":2}");
            assertThat(started.statusCode()).isEqualTo(200);
            JsonNode flow = read(started.body());
            assertThat(flow.get("type").asText()).isEqualTo("pkce");
            assertThat(flow.get("expiresAt").asLong()).isPositive();
            String authorizeUrl = flow.get("authorizeUrl").asText();
            assertThat(authorizeUrl).startsWith(auth.baseUrl() + "/authorize?");
            Map<String, String> q = query(authorizeUrl);
            assertThat(q).containsEntry("client_id", "client-from-settings").containsEntry("scope", "a b")
                    .containsEntry("code_challenge_method", "S256");
            String flowId = flow.get("flowId").asText();
            assertThat(read(sluice.send("GET", "/api/oauth/flows/" + flowId, ADMIN_KEY, null).body()).get("status").asText())
                    .isEqualTo("pending");

            auth.enqueue(MockResponse.json(200, tokenAnswer("access-token-0123456789", "dev@example.com")));
            HttpResponse<String> page = sluice.send("GET", "/api/oauth/callback?code=code-1&state=" + q.get("state"), null, null);

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("content-type").orElse("")).startsWith("text/html");
            assertThat(page.body()).contains("Connected");
            RecordedRequest exchange = auth.takeRequest(Duration.ofSeconds(5));
            assertThat(exchange.path()).isEqualTo("/token");
            Map<String, String> grant = form(exchange.body());
            assertThat(grant).containsEntry("grant_type", "authorization_code").containsEntry("client_id", "client-from-settings")
                    .containsEntry("code", "code-1").containsEntry("redirect_uri", "https://auth.acme.invalid/code");
            assertThat(s256(grant.get("code_verifier"))).as("S256 of the verifier is the challenge").isEqualTo(q.get("code_challenge"));
            assertThat(q.get("state")).hasSizeGreaterThanOrEqualTo(40);
            JsonNode status = read(sluice.send("GET", "/api/oauth/flows/" + flowId, ADMIN_KEY, null).body());
            assertThat(status.get("status").asText()).isEqualTo("connected");
            String connectionId = status.get("connectionId").asText();
            JsonNode connection = read(sluice.send("GET", "/api/providers/" + connectionId, ADMIN_KEY, null).body());
            assertThat(connection.get("authType").asText()).isEqualTo("oauth");
            assertThat(connection.get("name").asText()).isEqualTo("team");
            assertThat(connection.get("priority").asInt()).isEqualTo(2);
            assertThat(connection.get("baseUrl").asText()).isEqualTo(auth.baseUrl() + "/v1");
            assertThat(connection.toString()).doesNotContain("access-token-0123456789").contains("dev@example.com");

            HttpResponse<String> replay = sluice.send("GET", "/api/oauth/callback?code=code-1&state=" + q.get("state"), null, null);
            assertThat(replay.statusCode()).isEqualTo(400);
            assertThat(replay.body()).contains("already used");
            assertThat(auth.requestCount()).isEqualTo(1);
        }
    }

    @Test
    void pastedCallbackUrlCompletesTheFlowAndBadInputIsAClear4xx() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            assertThat(sluice.send("POST", "/api/oauth/nope/start", ADMIN_KEY, "{}").statusCode()).isEqualTo(404);
            HttpResponse<String> badFlow = sluice.send("POST", "/api/oauth/acme/start", ADMIN_KEY, "{\"flow\":\"magic\"}");
            assertThat(badFlow.statusCode()).isEqualTo(400);
            assertThat(read(badFlow.body()).at("/error/param").asText()).isEqualTo("flow");
            assertThat(sluice.send("POST", "/api/oauth/acme/start", ADMIN_KEY, "{\"flow\":\"device\"}").statusCode()).isEqualTo(400);
            assertThat(sluice.send("GET", "/api/oauth/flows/unknown", ADMIN_KEY, null).statusCode()).isEqualTo(404);

            JsonNode flow = read(sluice.send("POST", "/api/oauth/acme/start", ADMIN_KEY, null).body());
            String flowId = flow.get("flowId").asText();
            String state = query(flow.get("authorizeUrl").asText()).get("state");
            assertThat(sluice.send("POST", "/api/oauth/flows/" + flowId + "/code", ADMIN_KEY, "{}").statusCode()).isEqualTo(400);
            auth.enqueue(MockResponse.json(200, tokenAnswer("access-token-abcdefghij", "ops@example.com")));
            String pasted = "https://auth.acme.invalid/code?code=c-2&state=" + URLEncoder.encode(state, StandardCharsets.UTF_8);

            HttpResponse<String> done = sluice.send("POST", "/api/oauth/flows/" + flowId + "/code", ADMIN_KEY,
                    "{\"callbackUrl\":\"" + pasted + "\"}");

            assertThat(done.statusCode()).isEqualTo(200);
            assertThat(read(done.body()).get("status").asText()).isEqualTo("connected");
            Map<String, String> grant = form(auth.takeRequest(Duration.ofSeconds(5)).body());
            assertThat(grant).containsEntry("grant_type", "authorization_code").containsEntry("code", "c-2")
                    .containsEntry("client_id", "client-from-settings");
            assertThat(s256(grant.get("code_verifier"))).isEqualTo(query(flow.get("authorizeUrl").asText()).get("code_challenge"));
            HttpResponse<String> again = sluice.send("POST", "/api/oauth/flows/" + flowId + "/code", ADMIN_KEY, "{\"code\":\"c-3\"}");
            assertThat(again.statusCode()).isEqualTo(409);

            JsonNode other = read(sluice.send("POST", "/api/oauth/acme/start", ADMIN_KEY, null).body());
            HttpResponse<String> wrongState = sluice.send("POST", "/api/oauth/flows/" + other.get("flowId").asText() + "/code", ADMIN_KEY,
                    "{\"callbackUrl\":\"https://auth.acme.invalid/code?code=c-4&state=" + URLEncoder.encode(state, StandardCharsets.UTF_8) + "\"}");
            assertThat(wrongState.statusCode()).isEqualTo(200);
            assertThat(read(wrongState.body()).get("status").asText()).as("another flow's (replayed) state").isEqualTo("failed");
            assertThat(read(wrongState.body()).get("error").asText()).contains("state does not match");
            assertThat(auth.requestCount()).as("nothing was exchanged for the replayed state").isEqualTo(1);
            assertThat(read(sluice.send("GET", "/api/providers", ADMIN_KEY, null).body()).get("data")).hasSize(1);
        }
    }

    @Test
    void theCallbackPageEscapesWhatItEchoes() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            JsonNode flow = read(sluice.send("POST", "/api/oauth/acme/start", ADMIN_KEY, "{}").body());
            String state = query(flow.get("authorizeUrl").asText()).get("state");
            HttpResponse<String> page = sluice.send("GET", "/api/oauth/callback?state=" + URLEncoder.encode(state, StandardCharsets.UTF_8)
                    + "&error=" + URLEncoder.encode("<script>alert(1)</script>", StandardCharsets.UTF_8), null, null);

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).doesNotContain("<script>").contains("&lt;script&gt;");
            assertThat(read(sluice.send("GET", "/api/oauth/flows/" + flow.get("flowId").asText(), ADMIN_KEY, null).body())
                    .get("status").asText()).isEqualTo("failed");
            assertThat(auth.requestCount()).isZero();
        }
    }

    private static int cli(SluiceHarness sluice, String stdin, java.io.ByteArrayOutputStream out, java.io.ByteArrayOutputStream err,
            Map<String, String> extraEnv, String... args) {
        Map<String, String> env = new java.util.HashMap<>(extraEnv);
        env.put("SLUICE_URL", sluice.base());
        env.put("SLUICE_ADMIN_KEY", ADMIN_KEY);
        return dev.sluice.runtime.cli.Cli.run(dev.sluice.runtime.cli.CommandLine.parse(List.of(args)), Path.of("."), env,
                new java.io.ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8), new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void binSluiceLoginPrintsTheUrlReadsThePastedCodeAndPrintsTheConnection() throws Exception {
        try (MockUpstream auth = MockUpstream.start(); SluiceHarness sluice = start(auth)) {
            auth.enqueue(MockResponse.json(200, tokenAnswer("access-token-cli-0123456789", "cli@example.com")));
            var out = new java.io.ByteArrayOutputStream();
            var err = new java.io.ByteArrayOutputStream();

            int status = cli(sluice, "pasted-code-1\n", out, err, Map.of(), "login", "acme", "--name", "from cli");

            assertThat(status).as(err::toString).isZero();
            String printed = out.toString(StandardCharsets.UTF_8);
            assertThat(printed).contains(auth.baseUrl() + "/authorize?").contains("Connected: connection ").contains("'from cli'")
                    .contains("authType oauth").doesNotContain("access-token-cli");
            assertThat(auth.takeRequest(Duration.ofSeconds(5)).body()).contains("code=pasted-code-1");
        }
    }
}
