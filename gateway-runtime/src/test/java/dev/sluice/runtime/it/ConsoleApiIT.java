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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the operator console (issue 33) needed from the admin API, added for curl users too: the
 * resilience settings' schema, the strategy names beside the combos, usage per hour and minute,
 * and the providers with a login (that one is in {@link OAuthLoginIT}, which has a login plugin).
 */
class ConsoleApiIT {

    @TempDir
    Path dir;
    SluiceHarness sluice;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
    }

    @AfterEach
    void stop() {
        sluice.close();
    }

    private List<JsonNode> fields(JsonNode schema) {
        List<JsonNode> out = new ArrayList<>();
        schema.get("sections").forEach(s -> s.get("fields").forEach(out::add));
        return out;
    }

    @Test
    void resilienceSchemaNamesEveryFieldWithBoundsAndDefaults_andItsBoundsAreTheOnesAPatchMeets_issue33() {
        assertThat(sluice.send("GET", "/api/resilience/schema", null, null).statusCode()).isEqualTo(401);
        HttpResponse<String> r = sluice.send("GET", "/api/resilience/schema", ADMIN_KEY, null);
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode schema = read(r.body());
        JsonNode tree = read(sluice.send("GET", "/api/resilience", ADMIN_KEY, null).body());
        List<String> sections = new ArrayList<>();
        schema.get("sections").forEach(s -> {
            sections.add(s.get("name").asText());
            assertThat(s.get("affects").asText()).as(s.get("name").asText()).isNotBlank();
        });
        List<String> topLevel = new ArrayList<>();
        tree.fieldNames().forEachRemaining(topLevel::add);
        assertThat(sections).containsExactlyElementsOf(topLevel);

        JsonNode threshold = fields(schema).stream().filter(f -> f.get("path").asText().equals("circuitBreaker.apikey.failureThreshold"))
                .findFirst().orElseThrow();
        assertThat(threshold.get("type").asText()).isEqualTo("integer");
        assertThat(threshold.get("min").asLong()).isEqualTo(1);
        assertThat(threshold.get("max").asLong()).isEqualTo(1000);
        assertThat(threshold.get("default").asInt()).isEqualTo(12);
        assertThat(threshold.get("description").asText()).contains("OPEN");
        // a fresh server (no config, no PATCH) runs on the defaults: every leaf of the tree is described with its value
        for (JsonNode f : fields(schema)) {
            String pointer = "/" + f.get("path").asText().replace('.', '/');
            assertThat(tree.at(pointer).isMissingNode()).as(pointer).isFalse();
            assertThat(f.get("default")).as(pointer).isEqualTo(tree.at(pointer));
            assertThat(f.get("type").asText()).as(pointer).isIn("integer", "integerOrOff", "boolean", "integerList", "integerMap");
            assertThat(f.get("description").asText()).as(pointer).hasSizeGreaterThan(20);
        }
        // the form's field error: the bound the schema states is the one the PATCH enforces, named by the same path
        HttpResponse<String> over = sluice.send("PATCH", "/api/resilience", ADMIN_KEY,
                "{\"circuitBreaker\":{\"apikey\":{\"failureThreshold\":1001}}}");
        assertThat(over.statusCode()).isEqualTo(400);
        assertThat(read(over.body()).at("/error/param").asText()).isEqualTo("circuitBreaker.apikey.failureThreshold");
        assertThat(sluice.send("PATCH", "/api/resilience", ADMIN_KEY, "{\"circuitBreaker\":{\"apikey\":{\"failureThreshold\":1000}}}")
                .statusCode()).isEqualTo(200);
    }

    @Test
    void generalSettingsSchemaDescribesEveryFieldWithItsCurrentValueAndBounds_issue33() {
        assertThat(sluice.send("GET", "/api/settings/schema", null, null).statusCode()).isEqualTo(401);
        assertThat(sluice.send("PATCH", "/api/settings", ADMIN_KEY, "{\"sessionAffinityTtlMs\":1234}").statusCode()).isEqualTo(200);
        HttpResponse<String> r = sluice.send("GET", "/api/settings/schema", ADMIN_KEY, null);
        assertThat(r.statusCode()).isEqualTo(200);
        List<JsonNode> fields = fields(read(r.body()));
        assertThat(fields).extracting(f -> f.get("path").asText()).containsExactly("sessionAffinityTtlMs", "featureFlags.emergencyFallback",
                "modelAliases", "modelPrices", "providerErrorRules");
        read(r.body()).get("sections").forEach(s -> assertThat(s.get("affects").asText()).isNotBlank());
        fields.forEach(f -> assertThat(f.get("description").asText()).as(f.get("path").asText()).hasSizeGreaterThan(20));
        JsonNode ttl = fields.get(0);
        assertThat(ttl.get("type").asText()).isEqualTo("integer");
        assertThat(ttl.get("min").asLong()).isZero();
        assertThat(ttl.get("max").asLong()).isEqualTo(86_400_000L);
        assertThat(ttl.get("current").asLong()).isEqualTo(1234);
        // the bound the schema states is the one the PATCH enforces, named by the same path
        HttpResponse<String> over = sluice.send("PATCH", "/api/settings", ADMIN_KEY, "{\"sessionAffinityTtlMs\":86400001}");
        assertThat(over.statusCode()).isEqualTo(400);
        assertThat(read(over.body()).at("/error/param").asText()).isEqualTo("sessionAffinityTtlMs");
    }

    @Test
    void combosListCarriesEveryStrategyName_issue33() {
        JsonNode list = read(sluice.send("GET", "/api/combos", ADMIN_KEY, null).body());
        assertThat(list.get("data")).isEmpty();
        List<String> names = new ArrayList<>();
        list.get("strategies").forEach(n -> names.add(n.asText()));
        assertThat(names).contains("priority", "round-robin", "weighted", "cost-optimized", "reset-window").isSorted();
        assertThat(sluice.send("POST", "/api/combos", ADMIN_KEY,
                "{\"name\":\"c\",\"strategy\":\"" + names.get(names.size() - 1) + "\",\"targets\":[{\"model\":\"a/b\"}]}").statusCode())
                .as("every listed name is accepted").isEqualTo(201);
    }

    @Test
    void usageGroupsByUtcHourAndMinute_issue33() {
        try (MockUpstream upstream = MockUpstream.start()) {
            sluice.addOpenAiCompatible("mockai", upstream.baseUrl() + "/v1", 1);
            upstream.enqueue(MockResponse.completion("one"));
            upstream.enqueue(MockResponse.completion("two"));
            assertThat(sluice.send("POST", "/v1/chat/completions", ADMIN_KEY, chatBody("mockai/m", false)).statusCode()).isEqualTo(200);
            assertThat(sluice.send("POST", "/v1/chat/completions", ADMIN_KEY, chatBody("mockai/m", false)).statusCode()).isEqualTo(200);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(read(sluice.send("GET", "/api/usage", ADMIN_KEY, null).body()).at("/totals/requests").asLong()).isEqualTo(2));
            Instant now = Instant.ofEpochMilli(sluice.clock.millis());
            JsonNode byMinute = read(sluice.send("GET", "/api/usage?groupBy=minute", ADMIN_KEY, null).body());
            assertThat(byMinute.get("groupBy").asText()).isEqualTo("minute");
            assertThat(byMinute.get("groups")).singleElement().satisfies(g -> {
                assertThat(g.get("group").asText()).isEqualTo(now.truncatedTo(ChronoUnit.MINUTES).toString());
                assertThat(g.get("requests").asLong()).isEqualTo(2);
            });
            JsonNode byHour = read(sluice.send("GET", "/api/usage?groupBy=hour", ADMIN_KEY, null).body());
            assertThat(byHour.get("groups")).singleElement().satisfies(g -> {
                assertThat(g.get("group").asText()).isEqualTo(now.truncatedTo(ChronoUnit.HOURS).toString());
                assertThat(g.get("requests").asLong()).isEqualTo(2);
            });
            HttpResponse<String> bad = sluice.send("GET", "/api/usage?groupBy=second", ADMIN_KEY, null);
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(read(bad.body()).at("/error/param").asText()).isEqualTo("groupBy");
            assertThat(read(bad.body()).at("/error/message").asText()).contains("hour").contains("minute");
        }
    }

    @Test
    void withoutLoginPluginsNoProviderOffersALogin_issue33() {
        assertThat(sluice.send("GET", "/api/oauth/providers", null, null).statusCode()).isEqualTo(401);
        HttpResponse<String> r = sluice.send("GET", "/api/oauth/providers", ADMIN_KEY, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(read(r.body()).get("data")).isEmpty();
    }
}
