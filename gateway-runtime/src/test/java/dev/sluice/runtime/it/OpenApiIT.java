package dev.sluice.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * {@code GET /openapi} (issue 18): YAML and JSON of one document, which describes exactly the routes
 * the server registers, and which docs/api.md agrees with.
 */
class OpenApiIT {

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

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

    private JsonNode yamlDocument() {
        HttpResponse<String> r = sluice.send("GET", "/openapi", null, null);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/yaml"));
        Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(r.body());
        return SluiceHarness.JSON.valueToTree(tree);
    }

    @Test
    void theDocumentIsServedAsYamlByDefaultAndAsJsonOnRequest_issue18() {
        JsonNode yaml = yamlDocument();
        assertThat(yaml.get("openapi").asText()).startsWith("3.1");
        HttpResponse<String> json = sluice.send("GET", "/openapi", null, null, Map.of("Accept", "application/json"));
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        assertThat(SluiceHarness.read(json.body())).isEqualTo(yaml);
        // a browser's */* gets YAML
        assertThat(sluice.send("GET", "/openapi", null, null, Map.of("Accept", "text/html,*/*")).headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("application/yaml"));
    }

    /** {@code GET /api/providers/{id}} with parameter names left out, as routes are compared. */
    private static String shape(String route) {
        return route.replaceAll("\\{[^}]*}", "{}");
    }

    private static Set<String> documented(JsonNode doc) {
        Set<String> out = new TreeSet<>();
        doc.get("paths").properties().forEach(p -> p.getValue().properties().forEach(op -> {
            if (METHODS.contains(op.getKey())) {
                out.add(op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + p.getKey());
            }
        }));
        return out;
    }

    @Test
    void everyRouteTheServerRegistersIsDocumentedAndNothingElse_issue18() {
        JsonNode doc = yamlDocument();
        Set<String> documented = new TreeSet<>();
        documented(doc).forEach(r -> documented.add(shape(r)));
        Set<String> registered = new TreeSet<>();
        sluice.server.routes().forEach(r -> registered.add(shape(r)));
        assertThat(registered).contains("GET /metrics", "GET /api/usage", "GET /openapi", "POST /v1/chat/completions",
                "GET /v1/models/{}", "DELETE /api/providers/{}");
        assertThat(documented).as("documented routes vs registered routes").isEqualTo(registered);
    }

    @Test
    void theDocumentIsStructurallyValid_refsResolveAndPathParametersAreDeclared_issue18() {
        JsonNode doc = yamlDocument();
        assertThat(doc.at("/info/title").asText()).isEqualTo("Sluice");
        assertThat(doc.at("/info/version").asText()).isNotBlank();
        List<String> problems = new ArrayList<>();
        Set<String> operationIds = new TreeSet<>();
        doc.get("paths").properties().forEach(p -> {
            String path = p.getKey();
            List<String> params = new ArrayList<>();
            var m = Pattern.compile("\\{([^}]+)}").matcher(path);
            while (m.find()) {
                params.add(m.group(1));
            }
            p.getValue().properties().forEach(op -> {
                if (!METHODS.contains(op.getKey())) {
                    return;
                }
                JsonNode operation = op.getValue();
                if (!operationIds.add(operation.path("operationId").asText(""))) {
                    problems.add("duplicate or missing operationId at " + op.getKey() + " " + path);
                }
                if (!operation.has("responses") || operation.get("responses").isEmpty()) {
                    problems.add("no responses at " + op.getKey() + " " + path);
                }
                for (String param : params) {
                    if (!declares(doc, p.getValue().get("parameters"), param) && !declares(doc, operation.get("parameters"), param)) {
                        problems.add("path parameter " + param + " undeclared at " + op.getKey() + " " + path);
                    }
                }
            });
        });
        refs(doc, doc, problems);
        assertThat(problems).isEmpty();
    }

    private static boolean declares(JsonNode doc, JsonNode parameters, String name) {
        if (parameters == null) {
            return false;
        }
        for (JsonNode p : parameters) {
            JsonNode resolved = p.has("$ref") ? doc.at(p.get("$ref").asText().substring(1)) : p;
            if (name.equals(resolved.path("name").asText()) && "path".equals(resolved.path("in").asText())
                    && resolved.path("required").asBoolean()) {
                return true;
            }
        }
        return false;
    }

    private static void refs(JsonNode doc, JsonNode node, List<String> problems) {
        if (node.isObject()) {
            JsonNode ref = node.get("$ref");
            if (ref != null && (!ref.asText().startsWith("#/") || doc.at(ref.asText().substring(1)).isMissingNode())) {
                problems.add("unresolved $ref " + ref.asText());
            }
            node.forEach(child -> refs(doc, child, problems));
        } else if (node.isArray()) {
            node.forEach(child -> refs(doc, child, problems));
        }
    }

    @Test
    void docsApiMdNamesEveryDocumentedOperation_issue18() throws Exception {
        Path apiMd = Path.of("..", "docs", "api.md");
        assertThat(apiMd).exists();
        String text = Files.readString(apiMd);
        List<String> missing = new ArrayList<>();
        for (String route : documented(yamlDocument())) {
            if (route.startsWith("OPTIONS ")) {
                continue;
            }
            // "GET /api/keys" must not be satisfied by "GET /api/keys/{id}"
            if (!Pattern.compile(Pattern.quote(route) + "(?![A-Za-z0-9_/{-])").matcher(text).find()) {
                missing.add(route);
            }
        }
        assertThat(missing).as("operations of the OpenAPI document that docs/api.md does not name").isEmpty();
    }
}
