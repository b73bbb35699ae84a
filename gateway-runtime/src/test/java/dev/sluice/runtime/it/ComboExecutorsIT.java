package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The combo strategies that send requests of their own (issue 34), through a real server and
 * loopback mocks: {@code context-relay}'s summary, {@code pipeline} with a failing step and
 * {@code fusion} with a failing panel member, their usage and their options' 400s.
 */
class ComboExecutorsIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream a;
    MockUpstream b;
    MockUpstream c;
    String clientKey;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        a = MockUpstream.start();
        b = MockUpstream.start();
        c = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"it\"}");
        sluice.addOpenAiCompatible("alpha", a.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("beta", b.baseUrl() + "/v1", 1);
        sluice.addOpenAiCompatible("gamma", c.baseUrl() + "/v1", 1);
    }

    @AfterEach
    void stop() {
        sluice.close();
        a.close();
        b.close();
        c.close();
    }

    private void combo(String json) {
        HttpResponse<String> r = sluice.send("POST", "/api/combos", ADMIN_KEY, json);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }

    private HttpResponse<String> chat(String body) {
        return sluice.send("POST", "/v1/chat/completions", clientKey, body);
    }

    private static String content(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return read(r.body()).at("/choices/0/message/content").asText();
    }

    private long promptTokens(String provider) {
        JsonNode usage = read(sluice.send("GET", "/api/usage?groupBy=provider", ADMIN_KEY, null).body());
        for (JsonNode g : usage.get("groups")) {
            if (provider.equals(g.get("group").asText())) {
                return g.get("promptTokens").asLong();
            }
        }
        return 0;
    }

    /** One old turn of 3 000 bytes (about 750 tokens), its answer, and a short question: about 1 020 tokens in all. */
    private static final String OLD_TURN = "old-fact " + "y".repeat(3_000);
    private static final String CONVERSATION = "{\"model\":\"relay\",\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},"
            + "{\"role\":\"user\",\"content\":\"" + OLD_TURN + "\"},{\"role\":\"assistant\",\"content\":\"" + "z".repeat(1_000) + "\"},"
            + "{\"role\":\"user\",\"content\":\"and now the question\"}]}";

    @Test
    void contextRelaySummarisesTheOlderTurnsWhenTheConversationMovesToASmallerWindow_issue34() {
        HttpResponse<String> put = sluice.send("PUT", "/api/models/beta/small", ADMIN_KEY, "{\"contextWindow\":1000}");
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        combo("{\"name\":\"relay\",\"strategy\":\"context-relay\",\"strategyOptions\":{\"summaryModel\":\"gamma/summarizer\"},"
                + "\"targets\":[{\"model\":\"alpha/large\"},{\"model\":\"beta/small\"}]}");
        a.setDefault(MockResponse.completion("a"));
        b.setDefault(MockResponse.completion("b"));
        c.setDefault(MockResponse.completion("SUMMARY-OF-OLD-TURNS"));

        // served where it started: nothing to relay
        assertThat(content(chat(CONVERSATION))).isEqualTo("a");
        assertThat(c.requestCount()).isZero();

        // the large target fails: the conversation moves to a 1 000-token window it fills beyond 85 %
        a.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));
        HttpResponse<String> moved = chat(CONVERSATION);
        assertThat(content(moved)).isEqualTo("b");
        assertThat(moved.headers().firstValue("X-Sluice-Context-Relay")).contains("summarized");
        List<RecordedRequest> summary = c.requests();
        assertThat(summary).hasSize(1);
        assertThat(summary.getFirst().body()).contains("Summarise the conversation").contains("old-fact").contains("\"summarizer\"")
                .doesNotContain("and now the question");
        RecordedRequest shortened = b.requests().getFirst();
        assertThat(shortened.body()).contains("SUMMARY-OF-OLD-TURNS").contains("and now the question").contains("be brief")
                .doesNotContain("old-fact");

        // the next request of the conversation reuses the summary: no second summary request
        assertThat(content(chat(CONVERSATION))).isEqualTo("b");
        assertThat(c.requestCount()).isEqualTo(1);
        assertThat(b.requests().get(1).body()).contains("SUMMARY-OF-OLD-TURNS").doesNotContain("old-fact");
        // the summary's tokens count, under its own provider
        assertThat(promptTokens("gamma")).isEqualTo(3);
    }

    @Test
    void contextRelayGoesOnWithoutASummaryWhenSummarisingFails_issue34() {
        sluice.send("PUT", "/api/models/beta/small", ADMIN_KEY, "{\"contextWindow\":1100}");
        combo("{\"name\":\"relay\",\"strategy\":\"context-relay\",\"strategyOptions\":{\"summaryModel\":\"gamma/summarizer\"},"
                + "\"targets\":[{\"model\":\"alpha/large\"},{\"model\":\"beta/small\"}]}");
        a.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));
        b.setDefault(MockResponse.completion("b"));
        c.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"summariser down\"}}"));
        HttpResponse<String> r = chat(CONVERSATION);
        // the request fits the window (above the threshold, below the window): it goes on whole
        assertThat(content(r)).isEqualTo("b");
        assertThat(r.headers().firstValue("X-Sluice-Context-Relay")).isEmpty();
        assertThat(c.requestCount()).isPositive();
        assertThat(b.requests().getFirst().body()).contains("old-fact");
    }

    @Test
    void contextRelayWithoutASummaryPassesOverAWindowTooSmallForTheNextTarget_issue34() {
        sluice.send("PUT", "/api/models/beta/small", ADMIN_KEY, "{\"contextWindow\":1000}");
        sluice.send("PUT", "/api/models/gamma/huge", ADMIN_KEY, "{\"contextWindow\":100000}");
        combo("{\"name\":\"relay\",\"strategy\":\"context-relay\",\"strategyOptions\":{\"summaryModel\":\"gamma/summarizer\"},"
                + "\"targets\":[{\"model\":\"alpha/large\"},{\"model\":\"beta/small\"},{\"model\":\"gamma/huge\"}]}");
        a.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));
        b.setDefault(MockResponse.completion("b"));
        c.setDefault(MockResponse.choosing(r -> r.body().contains("Summarise the conversation")
                ? MockResponse.status(500, "{\"error\":{\"message\":\"summariser down\"}}") : MockResponse.completion("c")));
        HttpResponse<String> r = chat(CONVERSATION);
        // about 1 020 tokens do not fit beta's 1 000 and no summary came: beta is passed over for the larger gamma
        assertThat(content(r)).isEqualTo("c");
        assertThat(b.requestCount()).isZero();
        assertThat(c.requests()).anyMatch(q -> q.body().contains("Summarise the conversation"));
        assertThat(c.requests().getLast().body()).contains("old-fact").contains("\"huge\"");
    }

    @Test
    void pipelineFeedsEachStepsAnswerToTheNextAndAFailingStepFailsOverLikeATarget_issue34() {
        combo("{\"name\":\"pipe\",\"strategy\":\"pipeline\",\"strategyOptions\":{\"steps\":["
                + "{\"target\":0,\"instruction\":\"STEP-ONE draft it\"},{\"target\":1,\"instruction\":\"STEP-TWO polish it\"}]},"
                + "\"targets\":[{\"model\":\"alpha/m\"},{\"model\":\"beta/m\"}]}");
        a.setDefault(MockResponse.completion("draft-a"));
        b.setDefault(MockResponse.choosing(r -> MockResponse.completion(r.body().contains("STEP-TWO") ? "final-b" : "draft-b")));

        HttpResponse<String> ok = chat("{\"model\":\"pipe\",\"messages\":[{\"role\":\"user\",\"content\":\"write a haiku\"}]}");
        assertThat(content(ok)).isEqualTo("final-b");
        assertThat(ok.headers().firstValue("X-Sluice-Pipeline-Steps")).contains("2");
        assertThat(a.requests().getFirst().body()).contains("STEP-ONE").contains("write a haiku");
        assertThat(b.requests().getFirst().body()).contains("STEP-TWO").contains("write a haiku")
                .contains("The previous step's answer:\\n\\ndraft-a");
        // every step's usage counts: 3 prompt tokens per answer of the mock
        assertThat(promptTokens("alpha")).isEqualTo(3);
        assertThat(promptTokens("beta")).isEqualTo(3);

        // step one's target fails: the step fails over to the combo's other target, then the pipeline goes on
        a.clear();
        b.clear();
        a.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));
        b.setDefault(MockResponse.choosing(r -> MockResponse.completion(r.body().contains("STEP-TWO") ? "final-b" : "draft-b")));
        HttpResponse<String> failedOver = chat("{\"model\":\"pipe\",\"messages\":[{\"role\":\"user\",\"content\":\"write a haiku\"}]}");
        assertThat(content(failedOver)).isEqualTo("final-b");
        assertThat(a.requestCount()).isPositive();
        assertThat(b.requests()).hasSize(2);
        assertThat(b.requests().get(0).body()).contains("STEP-ONE");
        assertThat(b.requests().get(1).body()).contains("The previous step's answer:\\n\\ndraft-b");

        // only the last step streams
        b.clear();
        b.setDefault(MockResponse.choosing(r -> r.body().contains("STEP-TWO")
                ? MockResponse.chatStream(List.of("fin", "al"), Duration.ZERO) : MockResponse.completion("draft-b")));
        HttpResponse<String> streamed = chat("{\"model\":\"pipe\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}");
        assertThat(streamed.statusCode()).as(streamed.body()).isEqualTo(200);
        assertThat(streamed.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        assertThat(streamed.body()).contains("\"fin\"").contains("\"al\"").contains("[DONE]");
        assertThat(b.requests().getFirst().body()).contains("STEP-ONE").doesNotContain("\"stream\":true");
        assertThat(b.requests().get(1).body()).contains("\"stream\":true");
    }

    @Test
    void pipelineWhoseStepFailsEverywhereAnswersThatFailure_issue34() {
        combo("{\"name\":\"pipe\",\"strategy\":\"pipeline\",\"strategyOptions\":{\"steps\":["
                + "{\"target\":0,\"instruction\":\"STEP-ONE\"},{\"model\":\"gamma/m\",\"instruction\":\"STEP-TWO\"}]},"
                + "\"targets\":[{\"model\":\"alpha/m\"}]}");
        a.setDefault(MockResponse.completion("draft-a"));
        c.setDefault(MockResponse.status(400, "{\"error\":{\"message\":\"bad request at gamma\",\"type\":\"invalid_request_error\"}}"));
        HttpResponse<String> r = chat("{\"model\":\"pipe\",\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(a.requestCount()).isEqualTo(1);
        assertThat(c.requests().getFirst().body()).contains("draft-a");
    }

    @Test
    void fusionAsksThePanelAtOnceAndTheJudgeWritesTheAnswerWhileOneMemberFails_issue34() {
        combo("{\"name\":\"fuse\",\"strategy\":\"fusion\",\"strategyOptions\":{\"judge\":{\"target\":0}},"
                + "\"targets\":[{\"model\":\"alpha/m\"},{\"model\":\"beta/m\"},{\"model\":\"gamma/m\"}]}");
        a.setDefault(MockResponse.choosing(r -> r.body().contains("Candidate answers")
                ? (r.body().contains("\"stream\":true") ? MockResponse.chatStream(List.of("fu", "sed"), Duration.ZERO)
                        : MockResponse.completion("fused")) : MockResponse.completion("panel-a")));
        b.setDefault(MockResponse.completion("panel-b"));
        c.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));

        HttpResponse<String> r = chat("{\"model\":\"fuse\",\"messages\":[{\"role\":\"user\",\"content\":\"what is 2+2\"}]}");
        assertThat(content(r)).isEqualTo("fused");
        assertThat(r.headers().firstValue("X-Sluice-Fusion-Failed")).contains("gamma/m (server_error)");
        assertThat(r.headers().firstValue("X-Sluice-Fusion-Answered")).contains("alpha/m, beta/m");
        RecordedRequest judge = a.requests().stream().filter(q -> q.body().contains("Candidate answers")).findFirst().orElseThrow();
        assertThat(judge.body()).contains("### Candidate 1\\n\\npanel-a").contains("### Candidate 2\\n\\npanel-b").contains("what is 2+2");
        assertThat(c.requestCount()).isPositive();
        // the panel's and the judge's usage all count: alpha answered twice (panel and judge), beta once
        assertThat(promptTokens("alpha")).isEqualTo(6);
        assertThat(promptTokens("beta")).isEqualTo(3);

        // a streamed request streams the judge's answer
        HttpResponse<String> streamed = chat("{\"model\":\"fuse\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"2+2\"}]}");
        assertThat(streamed.statusCode()).as(streamed.body()).isEqualTo(200);
        assertThat(streamed.body()).contains("\"fu\"").contains("\"sed\"").contains("[DONE]");
        assertThat(streamed.headers().firstValue("X-Sluice-Fusion-Failed")).isPresent();

        // explain shows each target's role and calls nothing
        int calls = a.requestCount() + b.requestCount() + c.requestCount();
        JsonNode explain = read(sluice.send("POST", "/api/combos/fuse/explain", ADMIN_KEY, "{}").body());
        assertThat(explain.get("strategy").asText()).isEqualTo("fusion");
        assertThat(explain.at("/order/0/model").asText()).isEqualTo("alpha/m");
        assertThat(explain.at("/order/0/strategy/judge").asBoolean()).isTrue();
        assertThat(explain.at("/order/1/strategy/panel").asBoolean()).isTrue();
        assertThat(explain.at("/order/1/strategy/judge").asBoolean()).isFalse();
        assertThat(a.requestCount() + b.requestCount() + c.requestCount()).isEqualTo(calls);

        // no member answers: the last member's failure, and no judge
        a.clear();
        a.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));
        b.setDefault(MockResponse.status(500, "{\"error\":{\"message\":\"down\"}}"));
        HttpResponse<String> none = chat("{\"model\":\"fuse\",\"messages\":[{\"role\":\"user\",\"content\":\"2+2\"}]}");
        assertThat(none.statusCode()).as(none.body()).isGreaterThanOrEqualTo(500);
        assertThat(a.requests()).noneMatch(q -> q.body().contains("Candidate answers"));
    }

    @Test
    void badOptionsAre400NamingTheOption_issue34() {
        String[][] cases = {
            {"pipeline", "{}", "[{\"model\":\"alpha/m\"}]", "strategyOptions.steps"},
            {"pipeline", "{\"steps\":[{\"target\":3,\"instruction\":\"x\"}]}", "[{\"model\":\"alpha/m\"}]", "strategyOptions.steps[0].target"},
            {"pipeline", "{\"steps\":[{\"target\":0}]}", "[{\"model\":\"alpha/m\"}]", "strategyOptions.steps[0].instruction"},
            {"pipeline", "{\"steps\":[{\"target\":0,\"model\":\"a/b\",\"instruction\":\"x\"}]}", "[{\"model\":\"alpha/m\"}]",
                "strategyOptions.steps[0]"},
            {"fusion", "{}", "[{\"model\":\"alpha/m\"}]", "strategyOptions.judge"},
            {"fusion", "{\"judge\":{\"model\":\"alpha/m\"}}", "[{\"model\":\"a/1\"},{\"model\":\"a/2\"},{\"model\":\"a/3\"},"
                + "{\"model\":\"a/4\"},{\"model\":\"a/5\"},{\"model\":\"a/6\"}]", "strategyOptions.panel"},
            {"fusion", "{\"judge\":{\"target\":0},\"panel\":[{\"target\":0},{\"target\":0},{\"target\":0},{\"target\":0},{\"target\":0},"
                + "{\"target\":0}]}", "[{\"model\":\"alpha/m\"}]", "strategyOptions.panel"},
            {"context-relay", "{}", "[{\"model\":\"alpha/m\"}]", "strategyOptions.summaryModel"},
            {"context-relay", "{\"summaryModel\":\"gamma/s\",\"relayThreshold\":1.5}", "[{\"model\":\"alpha/m\"}]",
                "strategyOptions.relayThreshold"},
            {"context-relay", "{\"summaryModel\":\"gamma/s\",\"keepTurns\":0}", "[{\"model\":\"alpha/m\"}]", "strategyOptions.keepTurns"},
        };
        for (String[] t : cases) {
            HttpResponse<String> r = sluice.send("POST", "/api/combos", ADMIN_KEY, "{\"name\":\"bad\",\"strategy\":\"" + t[0]
                    + "\",\"strategyOptions\":" + t[1] + ",\"targets\":" + t[2] + "}");
            assertThat(r.statusCode()).as(t[0] + " " + t[1] + ": " + r.body()).isEqualTo(400);
            assertThat(read(r.body()).at("/error/param").asText()).as(r.body()).isEqualTo(t[3]);
        }
    }
}
