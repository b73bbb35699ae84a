package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * {@code GET /openapi}: the OpenAPI 3.1 document of the client and admin APIs, a resource written by
 * hand next to this class (and held to the routes the server registers by a test). YAML by
 * default, JSON for a client that accepts {@code application/json} and not YAML; no key needed.
 */
final class OpenApiService implements HttpService {

    /** The resource, beside this class. */
    static final String RESOURCE = "openapi.yaml";
    static final String YAML_TYPE = "application/yaml; charset=utf-8";

    private final byte[] yaml;
    private final byte[] json;

    OpenApiService(ObjectMapper mapper) {
        try (InputStream in = OpenApiService.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the OpenAPI document " + RESOURCE + " is missing from the runtime JAR");
            }
            this.yaml = in.readAllBytes();
            Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(new String(yaml, java.nio.charset.StandardCharsets.UTF_8));
            this.json = mapper.writeValueAsBytes(tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::document);
    }

    private void document(ServerRequest req, ServerResponse res) {
        // JSON when the client names application/json before any YAML type (a browser's */* gets YAML)
        String accept = req.headers().first(HeaderNames.ACCEPT).orElse("").toLowerCase(java.util.Locale.ROOT);
        int jsonAt = accept.indexOf("application/json");
        int yamlAt = accept.indexOf("yaml");
        boolean wantsJson = jsonAt >= 0 && (yamlAt < 0 || jsonAt < yamlAt);
        if (wantsJson) {
            Json.send(res, 200, json);
        } else {
            res.header(HeaderNames.CONTENT_TYPE, YAML_TYPE);
            res.send(yaml);
        }
    }
}
