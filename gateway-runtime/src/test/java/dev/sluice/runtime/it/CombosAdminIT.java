package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/combos} (SPEC §3, AD-1, CO-1): shapes, validation naming the field, admin auth, persistence. */
class CombosAdminIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
    }

    @AfterEach
    void stop() {
        if (sluice != null) {
            sluice.close();
        }
    }

    private HttpResponse<String> admin(String method, String path, String body) {
        return sluice.send(method, path, ADMIN_KEY, body);
    }

    private static void assertField(HttpResponse<String> r, String param) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode error = read(r.body()).get("error");
        assertThat(error.get("param").asText()).as(r.body()).isEqualTo(param);
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("code").asText()).isEqualTo("invalid_request");
    }

    private static String body(String name, String strategy, String targets) {
        return "{\"name\":\"" + name + "\",\"strategy\":\"" + strategy + "\",\"targets\":" + targets + "}";
    }

    private static final String ONE_TARGET = "[{\"model\":\"openai/gpt-4o\"}]";

    @Test
    void createdComboIsAnswered201WithEveryFieldAndNullsShown_AD1_CO1() {
        String conn = sluice.addConnection("{\"provider\":\"openai\",\"authType\":\"apikey\",\"apiKey\":\"sk-abcdef0123456789\"}");
        long t0 = sluice.clock.millis();
        HttpResponse<String> r = admin("POST", "/api/combos", "{\"name\":\"fast-chat\",\"strategy\":\"weighted\","
                + "\"strategyOptions\":{\"sticky\":true,\"depth\":{\"n\":2}},\"targets\":["
                + "{\"model\":\"openai/gpt-4o\",\"connectionId\":\"" + conn + "\",\"weight\":3,\"priority\":2,\"costPer1kTokens\":0.5},"
                + "{\"model\":\"glm/glm-4.6\"}]}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        JsonNode c = read(r.body());
        assertThat(c.get("name").asText()).isEqualTo("fast-chat");
        assertThat(c.get("strategy").asText()).isEqualTo("weighted");
        assertThat(c.at("/strategyOptions/sticky").asBoolean()).isTrue();
        assertThat(c.at("/strategyOptions/depth/n").asInt()).isEqualTo(2);
        assertThat(c.get("targets")).hasSize(2);
        JsonNode t0j = c.get("targets").get(0);
        assertThat(t0j.get("model").asText()).isEqualTo("openai/gpt-4o");
        assertThat(t0j.get("connectionId").asText()).isEqualTo(conn);
        assertThat(t0j.get("weight").asInt()).isEqualTo(3);
        assertThat(t0j.get("priority").asInt()).isEqualTo(2);
        assertThat(t0j.get("costPer1kTokens").asDouble()).isEqualTo(0.5);
        JsonNode t1j = c.get("targets").get(1);
        assertThat(t1j.get("model").asText()).isEqualTo("glm/glm-4.6");
        for (String f : new String[] {"connectionId", "weight", "priority", "costPer1kTokens"}) {
            assertThat(t1j.has(f)).as(f).isTrue();
            assertThat(t1j.get(f).isNull()).as(f).isTrue();
        }
        assertThat(c.get("createdAt").asLong()).isEqualTo(t0);
        assertThat(c.get("updatedAt").asLong()).isEqualTo(t0);

        HttpResponse<String> get = admin("GET", "/api/combos/fast-chat", null);
        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(read(get.body())).isEqualTo(c);
        HttpResponse<String> list = admin("GET", "/api/combos", null);
        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(read(list.body()).get("data")).hasSize(1);
        assertThat(read(list.body()).get("data").get(0)).isEqualTo(c);
    }

    @Test
    void emptyListIsDataArray_AD1() {
        HttpResponse<String> r = admin("GET", "/api/combos", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body()).get("data").isArray()).isTrue();
        assertThat(read(r.body()).get("data")).isEmpty();
    }

    @Test
    void listIsOrderedByName_CO1() {
        admin("POST", "/api/combos", body("b", "priority", ONE_TARGET));
        admin("POST", "/api/combos", body("a", "priority", ONE_TARGET));
        JsonNode data = read(admin("GET", "/api/combos", null).body()).get("data");
        assertThat(data).hasSize(2);
        assertThat(data.get(0).get("name").asText()).isEqualTo("a");
        assertThat(data.get(1).get("name").asText()).isEqualTo("b");
    }

    @Test
    void putReplacesStrategyOptionsAndTargetsKeepingNameAndCreatedAt_CO1() {
        long t0 = sluice.clock.millis();
        admin("POST", "/api/combos", "{\"name\":\"c1\",\"strategy\":\"priority\",\"strategyOptions\":{\"x\":1},"
                + "\"targets\":[{\"model\":\"a/m\"},{\"model\":\"b/m\"}]}");
        sluice.clock.advance(Duration.ofSeconds(3));

        HttpResponse<String> r = admin("PUT", "/api/combos/c1", "{\"strategy\":\"round-robin\",\"targets\":[{\"model\":\"c/m\",\"weight\":0}]}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode c = read(r.body());
        assertThat(c.get("name").asText()).isEqualTo("c1");
        assertThat(c.get("strategy").asText()).isEqualTo("round-robin");
        assertThat(c.get("strategyOptions").isObject()).isTrue();
        assertThat(c.get("strategyOptions")).isEmpty();
        assertThat(c.get("targets")).hasSize(1);
        assertThat(c.at("/targets/0/model").asText()).isEqualTo("c/m");
        assertThat(c.at("/targets/0/weight").asInt()).isZero();
        assertThat(c.get("createdAt").asLong()).isEqualTo(t0);
        assertThat(c.get("updatedAt").asLong()).isEqualTo(t0 + 3_000);
        assertThat(read(admin("GET", "/api/combos/c1", null).body())).isEqualTo(c);
    }

    @Test
    void aGetResultCanBePutBack_CO1() {
        String created = admin("POST", "/api/combos", body("rt", "random", ONE_TARGET)).body();
        HttpResponse<String> r = admin("PUT", "/api/combos/rt", created);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(read(r.body()).get("targets")).isEqualTo(read(created).get("targets"));
    }

    @Test
    void putWithADifferentBodyNameIs400Name_CO1() {
        admin("POST", "/api/combos", body("keep", "priority", ONE_TARGET));
        assertField(admin("PUT", "/api/combos/keep", body("other", "priority", ONE_TARGET)), "name");
        assertThat(admin("PUT", "/api/combos/keep", body("keep", "random", ONE_TARGET)).statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/api/combos/other", null).statusCode()).isEqualTo(404);
    }

    @Test
    void deleteAnswersNameAndDeletedThenTheComboIsGone_CO1() {
        admin("POST", "/api/combos", body("tmp", "priority", ONE_TARGET));

        HttpResponse<String> r = admin("DELETE", "/api/combos/tmp", null);

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode d = read(r.body());
        assertThat(d.get("name").asText()).isEqualTo("tmp");
        assertThat(d.get("deleted").asBoolean()).isTrue();
        assertThat(admin("GET", "/api/combos/tmp", null).statusCode()).isEqualTo(404);
        assertThat(read(admin("GET", "/api/combos", null).body()).get("data")).isEmpty();
    }

    @Test
    void unknownCombosAre404NotFound_CO1() {
        for (HttpResponse<String> r : java.util.List.of(admin("GET", "/api/combos/nope", null),
                admin("PUT", "/api/combos/nope", body("nope", "priority", ONE_TARGET)),
                admin("DELETE", "/api/combos/nope", null))) {
            assertThat(r.statusCode()).isEqualTo(404);
            assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("not_found");
        }
        assertThat(read(admin("GET", "/api/combos", null).body()).get("data")).isEmpty();
    }

    @Test
    void duplicateNameIs400NameAndKeepsTheFirst_CO1() {
        assertThat(admin("POST", "/api/combos", body("dup", "priority", ONE_TARGET)).statusCode()).isEqualTo(201);
        HttpResponse<String> r = admin("POST", "/api/combos", body("dup", "random", "[{\"model\":\"x/y\"}]"));
        assertField(r, "name");
        assertThat(read(r.body()).at("/error/message").asText()).contains("already exists");
        assertThat(read(admin("GET", "/api/combos/dup", null).body()).get("strategy").asText()).isEqualTo("priority");
    }

    @Test
    void invalidNamesAre400Name_CO1() {
        assertField(admin("POST", "/api/combos", "{\"strategy\":\"priority\",\"targets\":" + ONE_TARGET + "}"), "name");
        assertField(admin("POST", "/api/combos", "{\"name\":null,\"strategy\":\"priority\",\"targets\":" + ONE_TARGET + "}"), "name");
        assertField(admin("POST", "/api/combos", "{\"name\":7,\"strategy\":\"priority\",\"targets\":" + ONE_TARGET + "}"), "name");
        assertField(admin("POST", "/api/combos", body("", "priority", ONE_TARGET)), "name");
        assertField(admin("POST", "/api/combos", body("openai/gpt-4o", "priority", ONE_TARGET)), "name");
        assertField(admin("POST", "/api/combos", body("-lead", "priority", ONE_TARGET)), "name");
        assertField(admin("POST", "/api/combos", body("has space", "priority", ONE_TARGET)), "name");
        assertField(admin("POST", "/api/combos", body("x".repeat(65), "priority", ONE_TARGET)), "name");
        assertThat(admin("POST", "/api/combos", body("x".repeat(64), "priority", ONE_TARGET)).statusCode()).isEqualTo(201);
        assertThat(admin("POST", "/api/combos", body("A1._:-z", "priority", ONE_TARGET)).statusCode()).isEqualTo(201);
    }

    @Test
    void missingOrUnknownStrategyIs400StrategyNamingTheKnownOnes_CO2() {
        assertField(admin("POST", "/api/combos", "{\"name\":\"s\",\"targets\":" + ONE_TARGET + "}"), "strategy");
        assertField(admin("POST", "/api/combos", "{\"name\":\"s\",\"strategy\":3,\"targets\":" + ONE_TARGET + "}"), "strategy");
        HttpResponse<String> r = admin("POST", "/api/combos", body("s", "fastest", ONE_TARGET));
        assertField(r, "strategy");
        assertThat(read(r.body()).at("/error/message").asText()).contains("priority").contains("round-robin").contains("weighted");
    }

    @Test
    void strategyOptionsMustBeAnObject_CO1() {
        assertField(admin("POST", "/api/combos", "{\"name\":\"o\",\"strategy\":\"priority\",\"strategyOptions\":[1],\"targets\":"
                + ONE_TARGET + "}"), "strategyOptions");
        assertField(admin("POST", "/api/combos", "{\"name\":\"o\",\"strategy\":\"priority\",\"strategyOptions\":\"x\",\"targets\":"
                + ONE_TARGET + "}"), "strategyOptions");
        HttpResponse<String> ok = admin("POST", "/api/combos", "{\"name\":\"o\",\"strategy\":\"priority\",\"strategyOptions\":null,"
                + "\"targets\":" + ONE_TARGET + "}");
        assertThat(ok.statusCode()).isEqualTo(201);
        assertThat(read(ok.body()).get("strategyOptions")).isEmpty();
    }

    @Test
    void missingEmptyOrOversizedTargetsAre400Targets_CO1() {
        assertField(admin("POST", "/api/combos", "{\"name\":\"t\",\"strategy\":\"priority\"}"), "targets");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[]")), "targets");
        assertField(admin("POST", "/api/combos", body("t", "priority", "{\"model\":\"a/b\"}")), "targets");
        String many = "[" + String.join(",", java.util.Collections.nCopies(101, "{\"model\":\"a/b\"}")) + "]";
        assertField(admin("POST", "/api/combos", body("t", "priority", many)), "targets");
        String hundred = "[" + String.join(",", java.util.Collections.nCopies(100, "{\"model\":\"a/b\"}")) + "]";
        assertThat(admin("POST", "/api/combos", body("t", "priority", hundred)).statusCode()).isEqualTo(201);
    }

    @Test
    void invalidTargetsAre400NamingTheTargetField_CO1() {
        assertField(admin("POST", "/api/combos", body("t", "priority", "[\"a/b\"]")), "targets[0]");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\"},{}]")), "targets[1].model");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\" \"}]")), "targets[0].model");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":5}]")), "targets[0].model");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"weight\":-1}]")), "targets[0].weight");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"weight\":1.5}]")), "targets[0].weight");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"weight\":\"2\"}]")), "targets[0].weight");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"weight\":99999999999}]")),
                "targets[0].weight");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"priority\":0}]")), "targets[0].priority");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"costPer1kTokens\":-0.01}]")),
                "targets[0].costPer1kTokens");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"costPer1kTokens\":\"1\"}]")),
                "targets[0].costPer1kTokens");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"connectionId\":\"missing\"}]")),
                "targets[0].connectionId");
        assertField(admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"connectionId\":\"\"}]")),
                "targets[0].connectionId");
        HttpResponse<String> unknown = admin("POST", "/api/combos", body("t", "priority", "[{\"model\":\"a/b\",\"wieght\":1}]"));
        assertField(unknown, "targets[0].wieght");
        assertThat(read(unknown.body()).at("/error/message").asText()).contains("wieght");
        assertThat(read(admin("GET", "/api/combos", null).body()).get("data")).isEmpty();
    }

    @Test
    void boundaryTargetValuesAreAccepted_CO1() {
        HttpResponse<String> r = admin("POST", "/api/combos", body("edge", "cost-optimized",
                "[{\"model\":\"a/b\",\"weight\":0,\"priority\":1,\"costPer1kTokens\":0}]"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        assertThat(read(r.body()).at("/targets/0/weight").asInt()).isZero();
        assertThat(read(r.body()).at("/targets/0/priority").asInt()).isEqualTo(1);
        assertThat(read(r.body()).at("/targets/0/costPer1kTokens").asDouble()).isZero();
    }

    @Test
    void unknownTopLevelFieldsAre400NamingThem_CO1() {
        assertField(admin("POST", "/api/combos", "{\"name\":\"u\",\"strategy\":\"priority\",\"stratgy\":1,\"targets\":" + ONE_TARGET + "}"),
                "stratgy");
    }

    @Test
    void putValidatesLikePost_CO1() {
        admin("POST", "/api/combos", body("v", "priority", ONE_TARGET));
        assertField(admin("PUT", "/api/combos/v", "{\"strategy\":\"nope\",\"targets\":" + ONE_TARGET + "}"), "strategy");
        assertField(admin("PUT", "/api/combos/v", "{\"strategy\":\"priority\",\"targets\":[]}"), "targets");
        assertField(admin("PUT", "/api/combos/v", "{\"strategy\":\"priority\",\"targets\":[{\"model\":\"a/b\",\"weight\":-2}]}"),
                "targets[0].weight");
        assertThat(read(admin("GET", "/api/combos/v", null).body()).at("/targets/0/model").asText()).isEqualTo("openai/gpt-4o");
    }

    @Test
    void clientKeysAreRefusedAndMissingKeysUnauthorized_SEC4() {
        admin("POST", "/api/combos", body("sec", "priority", ONE_TARGET));
        String client = sluice.addKey("{\"name\":\"client\"}");
        for (String[] call : new String[][] {{"GET", "/api/combos", null}, {"POST", "/api/combos", body("x", "priority", ONE_TARGET)},
                {"GET", "/api/combos/sec", null}, {"PUT", "/api/combos/sec", body("sec", "random", ONE_TARGET)},
                {"DELETE", "/api/combos/sec", null}}) {
            HttpResponse<String> r = sluice.send(call[0], call[1], client, call[2]);
            assertThat(r.statusCode()).as(call[0] + " " + call[1]).isEqualTo(403);
            assertThat(read(r.body()).at("/error/code").asText()).isEqualTo("insufficient_scope");
            assertThat(sluice.send(call[0], call[1], null, call[2]).statusCode()).isEqualTo(401);
        }
        String adminScoped = sluice.addKey("{\"name\":\"ops\",\"scopes\":[\"admin\"]}");
        assertThat(sluice.send("GET", "/api/combos/sec", adminScoped, null).statusCode()).isEqualTo(200);
        assertThat(read(admin("GET", "/api/combos/sec", null).body()).get("strategy").asText()).isEqualTo("priority");
    }

    @Test
    void unsupportedMethodsAre405_CO1() {
        HttpResponse<String> r = admin("PATCH", "/api/combos/x", "{}");
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).contains("GET, PUT, DELETE");
    }

    @Test
    void combosSurviveARestart_DM4() {
        JsonNode created = read(admin("POST", "/api/combos", body("durable", "fill-first", "[{\"model\":\"a/b\",\"priority\":3}]")).body());
        sluice.close();
        sluice = null;

        sluice = new SluiceHarness(dir);
        HttpResponse<String> r = admin("GET", "/api/combos/durable", null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body())).isEqualTo(created);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"\"maxAttempts\":0", "\"maxAttempts\":1.5", "\"budgetMs\":-1",
        "\"budgetMs\":3000000000", "\"maxAttempts\":\"3\""})
    void routerOptionsAreWholeNumbersInRange_CO1(String option) {
        String field = option.substring(1, option.indexOf('"', 1));
        var r = sluice.send("POST", "/api/combos", SluiceHarness.ADMIN_KEY, "{\"name\":\"opt\",\"strategy\":\"priority\",\"strategyOptions\":{"
                + option + "},\"targets\":[{\"model\":\"glm/glm-4.6\"}]}");
        org.assertj.core.api.Assertions.assertThat(r.statusCode()).isEqualTo(400);
        org.assertj.core.api.Assertions.assertThat(SluiceHarness.read(r.body()).at("/error/param").asText()).isEqualTo("strategyOptions." + field);
    }
}
