package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model catalog and the strategies that read it through a real server and loopback mocks
 * (issue 34): {@code /api/models}, usage cost, {@code context-optimized}'s no-call 400,
 * {@code auto}'s exploration share and the virtual {@code auto} combos.
 */
class ModelCatalogCombosIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream a;
    MockUpstream b;
    String clientKey;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        a = MockUpstream.start();
        b = MockUpstream.start();
        a.setDefault(MockResponse.completion("a"));
        b.setDefault(MockResponse.completion("b"));
        clientKey = sluice.addKey("{\"name\":\"it\"}");
        sluice.addOpenAiCompatible("alpha", a.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("beta", b.baseUrl() + "/v1", 1);
    }

    @AfterEach
    void stop() {
        sluice.close();
        a.close();
        b.close();
    }

    private HttpResponse<String> put(String path, String body) {
        HttpResponse<String> r = sluice.send("PUT", path, ADMIN_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r;
    }

    private void combo(String json) {
        HttpResponse<String> r = sluice.send("POST", "/api/combos", ADMIN_KEY, json);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    /** A chat body whose one message is {@code bytes} bytes of text (about bytes / 4 estimated tokens). */
    private static String sized(String model, int bytes, Integer maxTokens) {
        return "{\"model\":\"" + model + "\"," + (maxTokens == null ? "" : "\"max_tokens\":" + maxTokens + ",")
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(bytes) + "\"}]}";
    }

    @Test
    void theCatalogMergesDescriptorsAndOperatorsAndSaysWhereEachFigureCameFrom_issue34() {
        JsonNode gpt = find(read(sluice.send("GET", "/api/models", ADMIN_KEY, null).body()), "openai/gpt-4o");
        assertThat(gpt.get("contextWindow").asLong()).isEqualTo(128_000);
        assertThat(gpt.at("/sources/contextWindow").asText()).isEqualTo("built-in");

        JsonNode after = read(put("/api/models/openai/gpt-4o", "{\"contextWindow\":64000,\"tier\":5}").body());
        assertThat(after.get("contextWindow").asLong()).isEqualTo(64_000);
        assertThat(after.at("/sources/contextWindow").asText()).isEqualTo("operator");
        assertThat(after.at("/sources/inputPerMillion").asText()).isEqualTo("built-in");
        assertThat(after.at("/override/tier").asInt()).isEqualTo(5);
        assertThat(read(sluice.send("GET", "/api/models/openai/gpt-4o", ADMIN_KEY, null).body()).get("tier").asInt()).isEqualTo(5);

        HttpResponse<String> bad = sluice.send("PUT", "/api/models/openai/gpt-4o", ADMIN_KEY, "{\"contextWindow\":-1}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(read(bad.body()).at("/error/param").asText()).isEqualTo("openai/gpt-4o.contextWindow");
        assertThat(sluice.send("PUT", "/api/models/openai/gpt-4o", ADMIN_KEY, "{\"speed\":1}").statusCode()).isEqualTo(400);
        assertThat(sluice.send("PUT", "/api/models/openai/gpt-4o", clientKey, "{}").statusCode()).isEqualTo(403);

        assertThat(sluice.send("DELETE", "/api/models/openai/gpt-4o", ADMIN_KEY, null).statusCode()).isEqualTo(204);
        assertThat(read(sluice.send("GET", "/api/models/openai/gpt-4o", ADMIN_KEY, null).body()).get("contextWindow").asLong())
                .isEqualTo(128_000);
        assertThat(sluice.send("DELETE", "/api/models/openai/gpt-4o", ADMIN_KEY, null).statusCode()).isEqualTo(404);
        assertThat(sluice.send("GET", "/api/models/nobody/nothing", ADMIN_KEY, null).statusCode()).isEqualTo(404);
    }

    @Test
    void usageCostUsesTheCatalogsPrices_issue34() {
        put("/api/models/alpha/m", "{\"inputPerMillion\":1000000,\"outputPerMillion\":1000000}");
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("alpha/m", false));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode usage = read(sluice.send("GET", "/api/usage?groupBy=model", ADMIN_KEY, null).body());
        JsonNode totals = usage.get("totals");
        long tokens = totals.get("promptTokens").asLong() + totals.get("completionTokens").asLong();
        assertThat(tokens).isPositive();
        // a dollar per token
        assertThat(totals.get("costUsd").asDouble()).isEqualTo(tokens);
        assertThat(totals.get("unpricedTokens").asLong()).isZero();
    }

    @Test
    void contextOptimizedSkipsTooSmallTargetsAndAnswersContextLengthExceededWithoutAnUpstreamCall_issue34() {
        put("/api/models/alpha/small", "{\"contextWindow\":1000}");
        put("/api/models/beta/large", "{\"contextWindow\":2000}");
        combo("{\"name\":\"ctx\",\"strategy\":\"context\",\"targets\":[{\"model\":\"beta/large\"},{\"model\":\"alpha/small\"}]}");

        // a small request starts at the smallest adequate window
        HttpResponse<String> small = sluice.send("POST", "/v1/chat/completions", clientKey, sized("ctx", 400, null));
        assertThat(read(small.body()).at("/choices/0/message/content").asText()).isEqualTo("a");
        // 1 500 estimated tokens fit only the large window: the small one is not tried even once
        a.clear();
        HttpResponse<String> mid = sluice.send("POST", "/v1/chat/completions", clientKey, sized("ctx", 6_000, null));
        assertThat(read(mid.body()).at("/choices/0/message/content").asText()).isEqualTo("b");
        assertThat(a.requestCount()).isZero();
        JsonNode explain = read(sluice.send("POST", "/api/combos/ctx/explain", ADMIN_KEY, sized("ctx", 6_000, null)).body());
        assertThat(explain.at("/order/0/model").asText()).isEqualTo("beta/large");
        assertThat(explain.at("/order/0/strategy/fits").asBoolean()).isTrue();
        assertThat(explain.at("/notTried/0/model").asText()).isEqualTo("alpha/small");
        assertThat(explain.at("/notTried/0/reason").asText()).isEqualTo("context_length_exceeded");
        assertThat(explain.at("/request/estimatedInputTokens").asLong()).isEqualTo(1_500);

        // max_tokens counts too, and nothing fits: the client's 400, in each API's envelope, with no upstream call
        a.clear();
        b.clear();
        HttpResponse<String> tooBig = sluice.send("POST", "/v1/chat/completions", clientKey, sized("ctx", 6_000, 600));
        assertThat(tooBig.statusCode()).isEqualTo(400);
        assertThat(read(tooBig.body()).at("/error/code").asText()).isEqualTo("context_length_exceeded");
        assertThat(read(tooBig.body()).at("/error/type").asText()).isEqualTo("invalid_request_error");
        HttpResponse<String> anthropic = sluice.send("POST", "/v1/messages", clientKey, "{\"model\":\"ctx\",\"max_tokens\":600,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"" + "x".repeat(6_000) + "\"}]}");
        assertThat(anthropic.statusCode()).isEqualTo(400);
        assertThat(read(anthropic.body()).get("type").asText()).isEqualTo("error");
        assertThat(read(anthropic.body()).at("/error/type").asText()).isEqualTo("invalid_request_error");
        assertThat(a.requestCount() + b.requestCount()).isZero();
    }

    @Test
    void autoExploresItsShareOfRequestsAndOtherwiseStartsAtTheBest_issue34() {
        combo("{\"name\":\"smart\",\"strategy\":\"auto\",\"strategyOptions\":{\"weights\":{\"health\":0,\"quota\":0,\"latency\":0,"
                + "\"cost\":1,\"context\":0}},\"targets\":[{\"model\":\"alpha/m\",\"costPer1kTokens\":0.001},"
                + "{\"model\":\"beta/m\",\"costPer1kTokens\":0.01}]}");
        int n = 2_000;
        for (int i = 0; i < n; i++) {
            HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody("smart", false));
            assertThat(r.statusCode()).isEqualTo(200);
        }
        // 5 % ± 3 % of 2 000 started at the other target
        assertThat(b.requestCount()).isBetween(40, 160);
        assertThat(a.requestCount() + b.requestCount()).isEqualTo(n);
        JsonNode explain = read(sluice.send("POST", "/api/combos/smart/explain", ADMIN_KEY, "{}").body());
        assertThat(explain.at("/order/0/model").asText()).isEqualTo("alpha/m");
        assertThat(explain.at("/order/0/strategy/explorationShare").asDouble()).isEqualTo(0.05);
        assertThat(explain.at("/order/0/strategy/parts/cost").asDouble()).isEqualTo(1.0);
        assertThat(explain.at("/order/1/strategy/parts/cost").asDouble()).isEqualTo(0.1);
        assertThat(explain.at("/order/0/figures/latencyP50Ms").isNumber()).isTrue();

        HttpResponse<String> bad = sluice.send("POST", "/api/combos", ADMIN_KEY, "{\"name\":\"bad\",\"strategy\":\"auto\","
                + "\"strategyOptions\":{\"weights\":{\"speed\":1}},\"targets\":[{\"model\":\"alpha/m\"}]}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(read(bad.body()).at("/error/message").asText()).contains("weights.speed");
    }

    @Test
    void theVirtualAutoCombosAreListedAndServeOverTheModelsTheKeyMayUse_issue34() {
        // before any provider lists a model, there is nothing for them to span
        assertThat(combos()).isEmpty();
        sluice.addConnection("{\"provider\":\"gamma\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-gamma-abcdef\","
                + "\"baseUrl\":\"" + a.baseUrl() + "/v1\",\"providerSpecificData\":{\"models\":[\"cheap\"]}}");
        sluice.addConnection("{\"provider\":\"delta\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-delta-abcdef\","
                + "\"baseUrl\":\"" + b.baseUrl() + "/v1\",\"providerSpecificData\":{\"models\":[\"dear\"]}}");
        assertThat(combos()).containsExactlyInAnyOrder("auto", "auto/cheap", "auto/fast", "auto/smart");
        put("/api/models/gamma/cheap", "{\"inputPerMillion\":0.1,\"outputPerMillion\":0.1,\"tier\":1}");
        put("/api/models/delta/dear", "{\"inputPerMillion\":50,\"outputPerMillion\":50,\"tier\":3}");
        // auto/cheap starts at the cheap model, auto/smart at the large one (but for their 5 % exploration)
        int cheapFirst = 0;
        int smartFirst = 0;
        for (int i = 0; i < 20; i++) {
            cheapFirst += answer("auto/cheap").equals("a") ? 1 : 0;
            smartFirst += answer("auto/smart").equals("b") ? 1 : 0;
        }
        assertThat(cheapFirst).isGreaterThanOrEqualTo(14);
        assertThat(smartFirst).isGreaterThanOrEqualTo(14);

        // the virtual combos are explained like stored ones, without an upstream call
        int calls = a.requestCount() + b.requestCount();
        JsonNode cheap = read(sluice.send("POST", "/api/combos/auto/cheap/explain", ADMIN_KEY, chatBody("auto/cheap", false)).body());
        assertThat(cheap.get("combo").asText()).isEqualTo("auto/cheap");
        assertThat(cheap.get("strategy").asText()).isEqualTo("auto");
        assertThat(cheap.at("/order/0/model").asText()).isEqualTo("gamma/cheap");
        assertThat(cheap.at("/order/0/strategy/weights/cost").asDouble()).isEqualTo(0.6);
        JsonNode smart = read(sluice.send("POST", "/api/combos/auto/smart/explain", ADMIN_KEY, "{}").body());
        assertThat(smart.at("/order/0/model").asText()).isEqualTo("delta/dear");
        JsonNode balanced = read(sluice.send("POST", "/api/combos/auto/explain", ADMIN_KEY, "{}").body());
        assertThat(balanced.at("/order/0/strategy/weights/health").asDouble()).isEqualTo(0.35);
        assertThat(sluice.send("POST", "/api/combos/auto/slow/explain", ADMIN_KEY, "{}").statusCode()).isEqualTo(404);
        assertThat(a.requestCount() + b.requestCount()).isEqualTo(calls);
    }

    private List<String> combos() {
        List<String> out = new ArrayList<>();
        for (JsonNode m : read(sluice.send("GET", "/v1/models", clientKey, null).body()).get("data")) {
            if (m.get("owned_by").asText().equals("combo")) {
                out.add(m.get("id").asText());
            }
        }
        return out;
    }

    private String answer(String model) {
        HttpResponse<String> r = sluice.send("POST", "/v1/chat/completions", clientKey, chatBody(model, false));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return read(r.body()).at("/choices/0/message/content").asText();
    }

    private static JsonNode find(JsonNode catalog, String id) {
        for (JsonNode m : catalog.get("models")) {
            if (m.get("id").asText().equals(id)) {
                return m;
            }
        }
        throw new AssertionError(id + " not in " + catalog);
    }
}
