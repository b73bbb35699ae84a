package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Property-based fuzzing of every JSON endpoint, client and admin (issue 19, SEC-6): arbitrary JSON
 * shapes and types, valid requests with one field replaced by an arbitrary value, deep nesting,
 * huge numbers, lone surrogates, invalid UTF-8, control characters and large strings. The
 * property: the answer is never a 5xx and never a hang; a 4xx carries its API's envelope with a
 * message; the server stays ready. Generated from fixed seeds (reproducible; the failing seed and
 * body are in the assertion message) — jqwik 1.10 targets JUnit Platform 1.x and this build runs
 * JUnit 6, so the generator is our own.
 */
class JsonFuzzIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int CASES_PER_ENDPOINT = 160;

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String key;
    String connectionId;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start().setDefault(MockResponse.echoCompletion());
        connectionId = sluice.addOpenAiCompatible("alpha", upstream.baseUrl() + "/v1", 1);
        key = sluice.addKey("{\"name\":\"fuzz\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    /** An endpoint, a valid body for it, and who may call it. */
    private record Endpoint(String method, String path, String validBody, boolean admin) {
    }

    private List<Endpoint> endpoints() {
        return List.of(
                new Endpoint("POST", "/v1/chat/completions", "{\"model\":\"alpha/m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                        + "\"max_tokens\":5,\"temperature\":0.5,\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\","
                        + "\"parameters\":{\"type\":\"object\"}}}]}", false),
                new Endpoint("POST", "/v1/messages", "{\"model\":\"alpha/m\",\"max_tokens\":5,\"system\":\"s\",\"messages\":[{\"role\":\"user\","
                        + "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}]}", false),
                new Endpoint("POST", "/v1/messages/count_tokens", "{\"model\":\"alpha/m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                        false),
                new Endpoint("POST", "/v1/responses", "{\"model\":\"alpha/m\",\"input\":[{\"type\":\"message\",\"role\":\"user\",\"content\":"
                        + "[{\"type\":\"input_text\",\"text\":\"hi\"}]}],\"instructions\":\"x\",\"max_output_tokens\":5}", false),
                new Endpoint("POST", "/v1/embeddings", "{\"model\":\"alpha/m\",\"input\":[\"a\",\"b\"]}", false),
                new Endpoint("POST", "/api/providers", "{\"provider\":\"fuzzed\",\"authType\":\"apikey\",\"apiKey\":\"sk-x\",\"baseUrl\":"
                        + "\"http://127.0.0.1:9/v1\",\"priority\":3,\"rateLimitOverrides\":{\"maxConcurrent\":2}}", true),
                new Endpoint("PATCH", "/api/providers/" + connectionId, "{\"priority\":2,\"enabled\":true,\"providerSpecificData\":{\"a\":1}}",
                        true),
                new Endpoint("POST", "/api/keys", "{\"name\":\"k\",\"scopes\":[\"admin\"],\"allowedConnections\":[]}", true),
                new Endpoint("POST", "/api/combos", "{\"name\":\"c\",\"strategy\":\"priority\",\"targets\":[{\"model\":\"alpha/m\"}]}", true),
                new Endpoint("PATCH", "/api/settings", "{\"sessionAffinityTtlMs\":1000,\"modelAliases\":{\"a\":\"alpha/m\"}}", true),
                new Endpoint("PATCH", "/api/resilience", "{\"streamRecovery\":{\"idleTimeoutMs\":60000}}", true),
                new Endpoint("POST", "/api/resilience/cooldowns", "{\"connectionIds\":[\"" + connectionId + "\"]}", true),
                new Endpoint("POST", "/api/v1/session-leases", "{\"action\":\"acquire\",\"model\":\"alpha/m\"}", false));
    }

    @Test
    void arbitraryJsonNeverGetsA5xxAndBadInputGetsA4xxInItsEnvelope() throws Exception {
        long seed = Long.getLong("fuzz.seed", 20261201L);
        for (Endpoint e : endpoints()) {
            Random random = new Random(seed ^ e.path().hashCode());
            JsonNode valid = JSON.readTree(e.validBody());
            for (int i = 0; i < CASES_PER_ENDPOINT; i++) {
                byte[] body = switch (i % 4) {
                    case 0 -> JSON.writeValueAsBytes(JsonGen.value(random, 0));
                    case 1, 2 -> JSON.writeValueAsBytes(JsonGen.mutate(random, valid.deepCopy()));
                    default -> JsonGen.rawHostile(random, e.validBody());
                };
                check(e, body, seed, i);
            }
            assertThat(sluice.send("GET", "/health/ready", null, null).statusCode()).as("ready after " + e.path()).isEqualTo(200);
        }
    }

    private void check(Endpoint e, byte[] body, long seed, int i) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(sluice.base() + e.path())).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + (e.admin() ? ADMIN_KEY : key)).header("Content-Type", "application/json")
                .header("X-Sluice-Lease-Owner", "vlo_" + "A".repeat(43))
                .method(e.method(), HttpRequest.BodyPublishers.ofByteArray(body));
        HttpResponse<String> r = sluice.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        String shown = new String(body, 0, Math.min(body.length, 300), StandardCharsets.UTF_8);
        String why = e.method() + " " + e.path() + " seed " + seed + " case " + i + ": " + shown + " -> " + r.statusCode() + " "
                + r.body().substring(0, Math.min(300, r.body().length()));
        assertThat(r.statusCode()).as(why).isLessThan(500);
        if (r.statusCode() >= 400) {
            JsonNode answer = JSON.readTree(r.body());
            assertThat(answer.at("/error/message").asText()).as(why).isNotBlank();
            if (e.path().startsWith("/v1/messages")) {
                assertThat(answer.get("type").asText()).as(why).isEqualTo("error");
            }
        }
    }

    /** Arbitrary JSON, mutations of valid bodies, and raw hostile bytes. */
    static final class JsonGen {

        private static final String[] STRINGS = {"", " ", "a", "alpha/m", "\u0000", "\r\n", "x".repeat(70_000), "\uD800", "\uDFFF",
            "null", "-1", "1e999", "../../x", "model\nInjected: 1", "\u202E", "😀", "admin", "lease:exclusive", "http://127.0.0.1:0",
            "HTTP://127.0.0.1:1/v1", "vlo_", "{\"a\":1}"};

        static Object value(Random r, int depth) {
            int kind = depth > 6 ? r.nextInt(6) : r.nextInt(9);
            return switch (kind) {
                case 0 -> null;
                case 1 -> r.nextBoolean();
                case 2 -> switch (r.nextInt(6)) {
                    case 0 -> r.nextInt();
                    case 1 -> Long.MIN_VALUE;
                    case 2 -> new java.math.BigInteger("1" + "0".repeat(40 + r.nextInt(400)));
                    case 3 -> new java.math.BigDecimal("1e" + (300 + r.nextInt(20000)));
                    case 4 -> -r.nextDouble() * 1e10;
                    default -> 0;
                };
                case 3, 4 -> STRINGS[r.nextInt(STRINGS.length)];
                case 5 -> randomString(r);
                case 6 -> {
                    List<Object> list = new ArrayList<>();
                    int n = r.nextInt(5);
                    for (int k = 0; k < n; k++) {
                        list.add(value(r, depth + 1));
                    }
                    yield list;
                }
                default -> {
                    Map<String, Object> map = new java.util.LinkedHashMap<>();
                    int n = r.nextInt(5);
                    for (int k = 0; k < n; k++) {
                        String[] keys = {"model", "messages", "input", "role", "content", "type", "tools", "name", "stream", "max_tokens",
                            "provider", "baseUrl", "action", "generation", "targets", "strategy", randomString(r)};
                        map.put(keys[r.nextInt(keys.length)], value(r, depth + 1));
                    }
                    yield map;
                }
            };
        }

        private static String randomString(Random r) {
            StringBuilder sb = new StringBuilder();
            int n = r.nextInt(20);
            for (int k = 0; k < n; k++) {
                sb.append((char) r.nextInt(0x3000));
            }
            return sb.toString();
        }

        /** A valid body with one field (at any depth) replaced by an arbitrary value, or removed. */
        static JsonNode mutate(Random r, JsonNode node) {
            List<JsonNode> containers = new ArrayList<>();
            collect(node, containers);
            JsonNode target = containers.get(r.nextInt(containers.size()));
            JsonNode replacement = JSON.valueToTree(value(r, 3));
            if (target instanceof com.fasterxml.jackson.databind.node.ObjectNode o && o.size() > 0) {
                List<String> names = new ArrayList<>();
                o.fieldNames().forEachRemaining(names::add);
                String name = names.get(r.nextInt(names.size()));
                if (r.nextInt(5) == 0) {
                    o.remove(name);
                } else {
                    o.set(name, replacement);
                }
            } else if (target instanceof com.fasterxml.jackson.databind.node.ArrayNode a && a.size() > 0) {
                a.set(r.nextInt(a.size()), replacement);
            }
            return node;
        }

        private static void collect(JsonNode n, List<JsonNode> out) {
            if (n.isContainerNode()) {
                out.add(n);
                n.forEach(c -> collect(c, out));
            }
        }

        /** Bytes no JSON library writes: deep nesting, invalid UTF-8, truncation, trailing garbage, a huge number literal. */
        static byte[] rawHostile(Random r, String valid) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            switch (r.nextInt(6)) {
                case 0 -> {
                    int depth = 300 + r.nextInt(3000);
                    out.writeBytes("{\"model\":".getBytes(StandardCharsets.US_ASCII));
                    out.writeBytes("[".repeat(depth).getBytes(StandardCharsets.US_ASCII));
                    out.writeBytes("]".repeat(depth).getBytes(StandardCharsets.US_ASCII));
                    out.writeBytes("}".getBytes(StandardCharsets.US_ASCII));
                }
                case 1 -> {
                    byte[] v = valid.getBytes(StandardCharsets.UTF_8);
                    int at = valid.indexOf("\"", valid.indexOf(':') + 1) + 1;
                    out.write(v, 0, at);
                    out.writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF, (byte) 0xED, (byte) 0xA0, (byte) 0x80});
                    out.write(v, at, v.length - at);
                }
                case 2 -> out.writeBytes(valid.substring(0, r.nextInt(valid.length())).getBytes(StandardCharsets.UTF_8));
                case 3 -> out.writeBytes((valid + "}{\"x\":1} garbage").getBytes(StandardCharsets.UTF_8));
                case 4 -> out.writeBytes(valid.replaceFirst("\\d+", "9".repeat(5000)).getBytes(StandardCharsets.UTF_8));
                default -> out.writeBytes(valid.replaceFirst("\"", java.util.regex.Matcher.quoteReplacement("\"\\uD83D\\u0000\\")).getBytes(StandardCharsets.UTF_8));
            }
            return out.toByteArray();
        }
    }
}
