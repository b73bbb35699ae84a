package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import org.junit.jupiter.api.Test;

/** Issue 35 §2: the 405 answers come from the routes the services registered, not from a second hand-kept table. */
class RouteTableTest {

    private static final HttpService KEYS = new HttpService() {
        @Override
        public void routing(HttpRules rules) {
            rules.get("/", (req, res) -> { }).post("/", (req, res) -> { }).delete("/{id}", (req, res) -> { });
        }
    };

    private static final HttpService MODELS = new HttpService() {
        @Override
        public void routing(HttpRules rules) {
            rules.get("/models/{+id}", (req, res) -> { }).post("/chat/completions", (req, res) -> { });
        }
    };

    @Test
    void theAllowedMethodsOfAPathAreThoseItsRoutesRegistered_issue35() {
        RouteTable table = new RouteTable();
        HttpRouting.Builder routing = HttpRouting.builder();
        table.register(routing, "/api/keys", KEYS);
        table.register(routing, "/v1", MODELS);
        assertThat(table.allowedMethods("/api/keys")).isEqualTo("GET, POST");
        assertThat(table.allowedMethods("/api/keys/")).as("a trailing slash").isEqualTo("GET, POST");
        assertThat(table.allowedMethods("/api/keys/k1")).isEqualTo("DELETE");
        assertThat(table.allowedMethods("/api/keys/k1/more")).as("{id} is one segment").isNull();
        assertThat(table.allowedMethods("/v1/models/openai/gpt-4o")).as("{+id} is the rest of the path").isEqualTo("GET");
        assertThat(table.allowedMethods("/v1/chat/completions")).isEqualTo("POST");
        assertThat(table.allowedMethods("/v1/chat")).isNull();
        assertThat(table.allowedMethods("/nowhere")).isNull();
        assertThat(table.routes()).contains("GET /v1/models/{id}", "DELETE /api/keys/{id}");
    }

    @Test
    void literalPartsOfAPatternAreNotRegularExpressions_issue35() {
        assertThat(RouteTable.pathRegex("/v1/a.b/{x}").matcher("/v1/aXb/1").matches()).isFalse();
        assertThat(RouteTable.pathRegex("/v1/a.b/{x}").matcher("/v1/a.b/1").matches()).isTrue();
    }
}
