package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.plugin.PluginJars;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plugin JAR dropped into {@code plugins/} is loaded at start-up and serves requests through
 * its own executor, which reuses the built-in OpenAI-compatible executor through the SPI and
 * reads its settings from the host context (SH-2, PA-1, PA-4).
 */
class PluginExecutorIT {

    static final String MODULE_INFO = """
            module acme.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with acme.AcmePlugin;
            }
            """;

    static final String PLUGIN = """
            package acme;

            import dev.sluice.api.*;
            import dev.sluice.api.chat.ChatRequest;
            import java.util.*;

            public final class AcmePlugin implements ProviderPlugin {
                public AcmePlugin() { }
                @Override public String name() { return "acme"; }
                @Override public int spiVersion() { return SPI_VERSION; }
                @Override public List<ProviderDescriptor> providers() {
                    return List.of(ProviderDescriptor.openAiCompatible("acme", "Acme", ProviderClass.APIKEY,
                            "https://api.acme.invalid/v1", List.of(ModelInfo.chat("acme-1"))).withExecutor("acme-tagging"));
                }
                @Override public List<ExecutorFactory> executors() {
                    return List.of(new ExecutorFactory() {
                        @Override public String name() { return "acme-tagging"; }
                        @Override public ProviderExecutor create(HostContext host) {
                            ProviderExecutor base = host.builtinExecutor(HostContext.OPENAI_COMPATIBLE).orElseThrow();
                            String tag = host.settings().get("tag", "untagged");
                            return call -> {
                                ChatRequest r = call.request();
                                Map<String, String> extra = new HashMap<>(r.extra());
                                extra.put("user", "\\"" + tag + "\\"");
                                Object other = call.target().providerSpecificData().get("renewOther");
                                if (other != null) {
                                    CredentialUpdates updates = host.credentialUpdates().orElseThrow();
                                    boolean own = updates.oauthRenewed(call.target().connectionId(), "renewed-access-token", null, 42L);
                                    boolean foreign = updates.oauthRenewed(other.toString(), "hijacked", null, 1L);
                                    extra.put("metadata", "{\\"own\\":" + own + ",\\"foreign\\":" + foreign + "}");
                                }
                                ChatRequest tagged = new ChatRequest(r.model(), r.messages(), r.tools(), r.toolChoiceJson(),
                                        r.stream(), r.maxTokens(), r.temperature(), r.topP(), r.stop(), extra);
                                return base.chat(new ChatCall(tagged, call.target(), call.requestId(), call.timeout()));
                            };
                        }
                    });
                }
                @Override public List<dev.sluice.api.combo.ComboStrategy> comboStrategies() {
                    return List.of(new dev.sluice.api.combo.ComboStrategy() {
                        @Override public String name() { return "acme-reverse"; }
                        @Override public List<dev.sluice.api.combo.ComboTargetView> order(dev.sluice.api.combo.ComboContext c,
                                List<dev.sluice.api.combo.ComboTargetView> eligible) {
                            List<dev.sluice.api.combo.ComboTargetView> reversed = new ArrayList<>(eligible);
                            Collections.reverse(reversed);
                            return reversed;
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
    void droppedInPluginServesItsProviderThroughItsOwnExecutor_SH2_PA1_PA4() throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("acme-plugin.jar"),
                Map.of("module-info.java", MODULE_INFO, "acme/AcmePlugin.java", PLUGIN), List.of());

        try (LogCapture log = new LogCapture();
                MockUpstream upstream = MockUpstream.start();
                SluiceHarness sluice = new SluiceHarness(dir, SluiceConfig.DEFAULT_MAX_BODY_BYTES, Map.of("acme", Map.of("tag", "blue")))) {
            String id = sluice.addConnection("{\"provider\":\"acme\",\"authType\":\"apikey\",\"apiKey\":\"sk-acme-0123456789abcdef\","
                    + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
            upstream.enqueue(MockResponse.completion("from acme"));

            String key = sluice.addKey("{\"name\":\"acme\"}");
            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false));

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(read(r.body()).at("/choices/0/message/content").asText()).isEqualTo("from acme");
            assertThat(r.headers().firstValue("X-Sluice-Connection-Id")).contains(id);
            JsonNode sent = read(upstream.takeRequest(Duration.ofSeconds(5)).body());
            assertThat(sent.get("user").asText()).isEqualTo("blue");
            assertThat(sent.get("model").asText()).isEqualTo("acme-1");

            JsonNode plugins = read(sluice.send("GET", "/api/plugins", ADMIN_KEY, null).body());
            assertThat(plugins.at("/data/0/name").asText()).isEqualTo("acme");
            assertThat(plugins.at("/data/0/source").asText()).isEqualTo("acme-plugin.jar");
            assertThat(plugins.at("/data/0/spiVersion").asInt()).isEqualTo(1);
            assertThat(plugins.at("/data/0/executors/0").asText()).isEqualTo("acme-tagging");
            assertThat(plugins.at("/data/0/providers/0/id").asText()).isEqualTo("acme");
            // issue 27: a contributed combo strategy shows in the admin view and the load log, and combos can name it
            assertThat(plugins.at("/data/0/comboStrategies").toString()).isEqualTo("[\"acme-reverse\"]");
            assertThat(log.text()).containsPattern("INFO dev\\.sluice\\.runtime\\.plugin\\.PluginLoader: Loaded plugin 'acme' \\(acme-plugin\\.jar\\):"
                    + " providers \\[acme\\], executors \\[acme-tagging\\], .* combo strategies \\[acme-reverse\\]");
            HttpResponse<String> combo = sluice.send("POST", "/api/combos", ADMIN_KEY,
                    "{\"name\":\"reversed\",\"strategy\":\"acme-reverse\",\"targets\":[{\"model\":\"acme/acme-1\"}]}");
            assertThat(combo.statusCode()).as(combo.body()).isEqualTo(201);

            JsonNode models = read(sluice.send("GET", "/v1/models", key, null).body());
            assertThat(models.toString()).contains("\"acme/acme-1\"");
        }
    }

    @Test
    void brokenPluginIsReportedByFileNameAndTheServerStillStarts_SH2() throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        Files.write(dir.resolve("plugins").resolve("broken.jar"), new byte[] {1, 2, 3, 4});

        try (SluiceHarness sluice = new SluiceHarness(dir)) {
            JsonNode plugins = read(sluice.send("GET", "/api/plugins", ADMIN_KEY, null).body());
            assertThat(plugins.get("data").size()).isZero();
            assertThat(plugins.at("/failures/0/source").asText()).isEqualTo("broken.jar");
            assertThat(plugins.at("/failures/0/reason").asText()).isNotBlank();
            assertThat(sluice.send("GET", "/health/ready", null, null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void pluginsPersistRenewedTokensOfTheirOwnConnectionsOnly_PA4() throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("acme-plugin.jar"),
                Map.of("module-info.java", MODULE_INFO, "acme/AcmePlugin.java", PLUGIN), List.of());

        try (MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = new SluiceHarness(dir)) {
            String foreign = sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"oauth\","
                    + "\"oauth\":{\"accessToken\":\"openai-token-0123456789\"}}");
            String id = sluice.addConnection("{\"provider\":\"acme\",\"authType\":\"oauth\",\"oauth\":{\"accessToken\":\"old-access-0123456789\","
                    + "\"refreshToken\":\"refresh-0123456789\"},\"baseUrl\":\"" + upstream.baseUrl() + "/v1\","
                    + "\"providerSpecificData\":{\"renewOther\":\"" + foreign + "\"}}");
            String key = sluice.addKey("{\"name\":\"acme\"}");

            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false));

            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode sent = read(upstream.takeRequest(Duration.ofSeconds(5)).body());
            assertThat(sent.at("/metadata/own").asBoolean()).isTrue();
            assertThat(sent.at("/metadata/foreign").asBoolean()).isFalse();
            var renewed = sluice.server.connections().find(id).orElseThrow().oauth();
            assertThat(renewed.accessToken()).isEqualTo("renewed-access-token");
            assertThat(renewed.refreshToken()).isEqualTo("refresh-0123456789");
            assertThat(renewed.expiresAt()).isEqualTo(42L);
            assertThat(sluice.server.connections().find(foreign).orElseThrow().oauth().accessToken()).isEqualTo("openai-token-0123456789");
        }
    }

    /** AcmePlugin with an executor whose class fails to initialise (an invalid regex in a static final field). */
    static final String BROKEN_PLUGIN = PLUGIN
            .replace("ProviderExecutor base = host.builtinExecutor", "java.util.regex.Pattern p = Rules.HEADER;\n"
                    + "                            ProviderExecutor base = host.builtinExecutor");
    static final String RULES = """
            package acme;
            final class Rules {
                static final java.util.regex.Pattern HEADER = java.util.regex.Pattern.compile("(quota");
            }
            """;

    @Test
    void pluginWhoseExecutorCannotStartIsRefusedAndItsConnectionsAnswerWhy_SH2() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        Path jar = plugins.resolve("acme-plugin.jar");
        PluginJars jars = new PluginJars(scratch);
        jars.compile(jar, Map.of("module-info.java", MODULE_INFO, "acme/AcmePlugin.java", PLUGIN, "acme/Rules.java", RULES), List.of());
        String id;
        try (MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = new SluiceHarness(dir)) {
            id = sluice.addConnection("{\"provider\":\"acme\",\"authType\":\"apikey\",\"apiKey\":\"sk-acme-0123456789abcdef\","
                    + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
        }
        Files.delete(jar);
        jars.compile(jar, Map.of("module-info.java", MODULE_INFO, "acme/AcmePlugin.java", BROKEN_PLUGIN, "acme/Rules.java", RULES),
                List.of());

        try (MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = new SluiceHarness(dir)) {
            JsonNode plugins2 = read(sluice.send("GET", "/api/plugins", ADMIN_KEY, null).body());
            assertThat(plugins2.get("data").size()).isZero();
            assertThat(plugins2.at("/failures/0/source").asText()).isEqualTo("acme-plugin.jar");
            assertThat(plugins2.at("/failures/0/reason").asText()).contains("executor 'acme-tagging' failed to start:"
                    + " ExceptionInInitializerError caused by PatternSyntaxException: Unclosed group");
            assertThat(plugins2.at("/failures/0/providers/0").asText()).isEqualTo("acme");

            HttpResponse<String> created = sluice.send("POST", "/api/providers", ADMIN_KEY, "{\"provider\":\"acme\",\"authType\":\"apikey\","
                    + "\"apiKey\":\"sk-acme-0123456789abcdef\",\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
            assertThat(created.statusCode()).isEqualTo(400);
            assertThat(read(created.body()).at("/error/message").asText()).contains("Provider 'acme' cannot take connections")
                    .contains("acme-plugin.jar").contains("PatternSyntaxException");

            String key = sluice.addKey("{\"name\":\"acme\"}");
            HttpResponse<String> chat = sluice.send("POST", "/v1/chat/completions", key, chatBody("acme/acme-1", false));
            assertThat(chat.statusCode()).isEqualTo(503);
            assertThat(read(chat.body()).at("/error/code").asText()).isEqualTo("provider_unavailable");
            assertThat(read(chat.body()).at("/error/message").asText()).contains("Provider 'acme' is unavailable")
                    .contains("acme-plugin.jar was refused");
            assertThat(upstream.requestCount()).isZero();
            assertThat(sluice.server.connections().find(id)).isPresent();
        }
    }

    static final String RULES_MODULE_INFO = """
            module rules.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with rules.RulesPlugin;
            }
            """;
    static final String RULES_PLUGIN = """
            package rules;

            import dev.sluice.api.*;
            import dev.sluice.api.rules.*;
            import java.util.*;

            public final class RulesPlugin implements ProviderPlugin {
                public RulesPlugin() { }
                @Override public String name() { return "rules"; }
                @Override public int spiVersion() { return SPI_VERSION; }
                @Override public List<ProviderDescriptor> providers() {
                    return List.of(
                            new ProviderDescriptor("strict", "Strict", ProviderClass.APIKEY, "https://strict.invalid/v1",
                                    HostContext.OPENAI_COMPATIBLE, List.of(), true, false, true),
                            new ProviderDescriptor("loose", "Loose", ProviderClass.APIKEY, "https://loose.invalid/v1",
                                    HostContext.OPENAI_COMPATIBLE, List.of(), true, false, false));
                }
                @Override public List<ErrorRule> errorRules() {
                    return List.of(
                            new ErrorRule("quota", "strict", 429, Map.of(), List.of(), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null),
                            new ErrorRule("quota", "loose", 429, Map.of(), List.of(), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null));
                }
            }
            """;

    @Test
    void pluginsListShowsWhetherEachErrorRulesScopeIsHonoured_ER3() throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("rules.jar"),
                Map.of("module-info.java", RULES_MODULE_INFO, "rules/RulesPlugin.java", RULES_PLUGIN), List.of());

        try (SluiceHarness sluice = new SluiceHarness(dir)) {
            JsonNode rules = read(sluice.send("GET", "/api/plugins", ADMIN_KEY, null).body()).at("/data/0/errorRules");
            assertThat(rules.get(0).get("provider").asText()).isEqualTo("strict");
            assertThat(rules.get(0).get("scope").asText()).isEqualTo("connection");
            assertThat(rules.get(0).get("scopeHonoured").asBoolean()).isTrue();
            assertThat(rules.get(1).get("provider").asText()).isEqualTo("loose");
            assertThat(rules.get(1).get("scopeHonoured").asBoolean()).isFalse();
        }
    }

    static final String RESELLER_MODULE_INFO = """
            module reseller.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with reseller.ResellerPlugin;
            }
            """;
    /** Issue 17 item 1: the built-in executor with a header and a body tweak, no executor of its own. */
    static final String RESELLER_PLUGIN = """
            package reseller;

            import dev.sluice.api.*;
            import java.util.*;

            public final class ResellerPlugin implements ProviderPlugin {
                public ResellerPlugin() { }
                @Override public String name() { return "reseller"; }
                @Override public int spiVersion() { return SPI_VERSION; }
                @Override public List<ProviderDescriptor> providers() {
                    return List.of(ProviderDescriptor.openAiCompatible("reseller", "Reseller", ProviderClass.APIKEY,
                            "https://api.reseller.invalid/v1", List.of(ModelInfo.chat("r-1"))).withExecutor("reseller"));
                }
                @Override public List<ExecutorFactory> executors() {
                    return List.of(new ExecutorFactory() {
                        @Override public String name() { return "reseller"; }
                        @Override public ProviderExecutor create(HostContext host) {
                            return host.builtinExecutor(HostContext.OPENAI_COMPATIBLE, ExecutorCustomizer.none()
                                    .withHeader("X-Reseller-Client", "sluice")
                                    .withChatBody(json -> "{\\"service_tier\\":\\"flex\\"," + json.substring(1))).orElseThrow();
                        }
                    });
                }
            }
            """;

    @Test
    void aPluginReusesTheBuiltinExecutorWithAHeaderAndABodyTweak_issue17() throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("reseller.jar"),
                Map.of("module-info.java", RESELLER_MODULE_INFO, "reseller/ResellerPlugin.java", RESELLER_PLUGIN), List.of());

        try (MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = new SluiceHarness(dir)) {
            sluice.addConnection("{\"provider\":\"reseller\",\"authType\":\"apikey\",\"apiKey\":\"sk-reseller-0123456789\","
                    + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
            upstream.enqueue(MockResponse.completion("resold"));
            String key = sluice.addKey("{\"name\":\"r\"}");

            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", key, chatBody("reseller/r-1", false));

            assertThat(r.statusCode()).isEqualTo(200);
            var request = upstream.takeRequest(Duration.ofSeconds(5));
            assertThat(request.header("x-reseller-client")).isEqualTo("sluice");
            assertThat(request.header("authorization")).isEqualTo("Bearer sk-reseller-0123456789");
            JsonNode sent = read(request.body());
            assertThat(sent.get("service_tier").asText()).isEqualTo("flex");
            assertThat(sent.get("model").asText()).isEqualTo("r-1");
        }
    }

    static final String NATIVE_MODULE_INFO = """
            module nat.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with nat.NativePlugin;
            }
            """;

    /** A provider that speaks Anthropic natively: /v1/messages requests are passed through to it. */
    static final String NATIVE_PLUGIN = """
            package nat;

            import dev.sluice.api.*;
            import dev.sluice.api.upstream.*;
            import java.io.IOException;
            import java.net.URI;
            import java.util.*;

            public final class NativePlugin implements ProviderPlugin {
                public NativePlugin() { }
                @Override public String name() { return "native"; }
                @Override public int spiVersion() { return SPI_VERSION; }
                @Override public List<ProviderDescriptor> providers() {
                    return List.of(ProviderDescriptor.openAiCompatible("nat", "Native", ProviderClass.APIKEY,
                            "https://api.native.invalid", List.of(ModelInfo.chat("nat-1"))).withExecutor("nat"));
                }
                @Override public List<ExecutorFactory> executors() {
                    return List.of(new ExecutorFactory() {
                        @Override public String name() { return "nat"; }
                        @Override public ProviderExecutor create(HostContext host) {
                            return new ProviderExecutor() {
                                @Override public ChatOutcome chat(ChatCall call) {
                                    return new ChatOutcome.Failed(new TransportError(TransportErrorKind.OTHER, "translated path not used"));
                                }
                                @Override public boolean supportsPassthrough(String dialect) {
                                    return PassthroughCall.ANTHROPIC_MESSAGES.equals(dialect);
                                }
                                @Override public PassthroughOutcome passthrough(PassthroughCall call) {
                                    try {
                                        UpstreamResponse r = host.http().send(new UpstreamRequest("POST",
                                                URI.create(call.target().baseUrl() + "/v1/messages"),
                                                Map.of("content-type", "application/json", "x-api-key", call.target().credentials().apiKey()),
                                                call.body(), call.timeout()));
                                        if (r.head().status() >= 300) {
                                            String body = r.bodyText(65536);
                                            r.close();
                                            return new PassthroughOutcome.Failed(new UpstreamError(r.head(), body, null, null, null));
                                        }
                                        return new PassthroughOutcome.Accepted(r);
                                    } catch (IOException e) {
                                        return new PassthroughOutcome.Failed(TransportError.of(e));
                                    }
                                }
                            };
                        }
                    });
                }
            }
            """;

    @Test
    void anthropicClientsArePassedThroughToAProviderThatSpeaksAnthropic_API3() throws Exception {
        Files.createDirectories(dir.resolve("plugins"));
        new PluginJars(scratch).compile(dir.resolve("plugins").resolve("native-plugin.jar"),
                Map.of("module-info.java", NATIVE_MODULE_INFO, "nat/NativePlugin.java", NATIVE_PLUGIN), List.of());

        try (MockUpstream upstream = MockUpstream.start(); SluiceHarness sluice = new SluiceHarness(dir)) {
            sluice.addConnection("{\"provider\":\"nat\",\"authType\":\"apikey\",\"apiKey\":\"nat-key-0123456789\","
                    + "\"baseUrl\":\"" + upstream.baseUrl() + "\"}");
            String key = sluice.addKey("{\"name\":\"nat\"}");
            String answer = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"nat-1\",\"content\":[{\"type\":\"thinking\","
                    + "\"thinking\":\"hm\",\"signature\":\"sig-abc\"},{\"type\":\"text\",\"text\":\"hi\"}],\"stop_reason\":\"end_turn\","
                    + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":2}}";
            upstream.enqueue(MockResponse.json(200, answer));
            String request = "{\"model\":\"nat/nat-1\",\"max_tokens\":64,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                    + "\"text\":\"x\",\"cache_control\":{\"type\":\"ephemeral\"}}]},{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
                    + "\"thinking\":\"t\",\"signature\":\"sig-1\"},{\"type\":\"text\",\"text\":\"y\"}]},{\"role\":\"user\",\"content\":\"z\"}]}";

            HttpResponse<String> r = sluice.send("POST", "/v1/messages", null, request, Map.of("x-api-key", key));

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(answer);
            assertThat(r.headers().firstValue("X-Sluice-Provider")).contains("nat");
            JsonNode sent = read(upstream.takeRequest(Duration.ofSeconds(5)).body());
            JsonNode expected = read(request);
            ((com.fasterxml.jackson.databind.node.ObjectNode) expected).put("model", "nat-1");
            assertThat(sent).isEqualTo(expected);

            upstream.enqueue(MockResponse.sse(List.of("{\"type\":\"message_start\"}", "{\"type\":\"message_stop\"}"), Duration.ofMillis(5)));
            HttpResponse<String> streamed = sluice.send("POST", "/v1/messages", null,
                    request.replace("\"max_tokens\":64", "\"max_tokens\":64,\"stream\":true"), Map.of("x-api-key", key));
            assertThat(streamed.statusCode()).isEqualTo(200);
            assertThat(streamed.body()).isEqualTo("data: {\"type\":\"message_start\"}\n\ndata: {\"type\":\"message_stop\"}\n\n");
        }
    }
}
