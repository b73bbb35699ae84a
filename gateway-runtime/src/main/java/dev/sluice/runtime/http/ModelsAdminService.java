package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.catalog.CatalogEntry;
import dev.sluice.runtime.catalog.CatalogException;
import dev.sluice.runtime.catalog.ModelCatalog;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code /api/models} (issue 34): the model catalog — {@code GET /} lists every model some layer
 * knows with its merged figures and where each came from; {@code GET /{provider/model}} shows one;
 * {@code PUT /{provider/model}} replaces the operator's figures of a model (those left out fall back
 * to the config file's and the descriptor's); {@code DELETE /{provider/model}} drops them.
 */
final class ModelsAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final ModelCatalog catalog;

    ModelsAdminService(Json json, Authenticator auth, ModelCatalog catalog) {
        this.json = json;
        this.auth = auth;
        this.catalog = catalog;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list).get("/{+id}", this::get).put("/{+id}", this::put).delete("/{+id}", this::delete);
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        ArrayNode models = root.putArray("models");
        for (CatalogEntry e : catalog.entries()) {
            models.add(render(e));
        }
        json.send(res, 200, root);
    }

    private void get(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String id = req.path().pathParameters().get("id");
        json.send(res, 200, render(catalog.find(id).orElseThrow(() -> notFound(id))));
    }

    private void put(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String id = req.path().pathParameters().get("id");
        ObjectNode body = json.objectBody(req);
        Map<String, Object> figures = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> f : body.properties()) {
            JsonNode v = f.getValue();
            if (!v.isNull() && !v.isNumber()) {
                throw ApiException.badRequest(f.getKey(), "'" + f.getKey() + "' must be a number or null.");
            }
            figures.put(f.getKey(), v.isNull() ? null : v.numberValue());
        }
        try {
            json.send(res, 200, render(catalog.put(id, figures)));
        } catch (CatalogException e) {
            throw ApiException.badRequest(e.path(), e.getMessage());
        }
    }

    private void delete(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String id = req.path().pathParameters().get("id");
        if (!catalog.remove(id)) {
            throw ApiException.notFound("model_override_not_found", "No operator figures are set for '" + id + "'.");
        }
        res.status(204).send();
    }

    private ObjectNode render(CatalogEntry e) {
        ObjectNode o = json.object();
        o.put("id", e.id());
        e.figures().forEach((name, v) -> put(o, name, v));
        ObjectNode sources = o.putObject("sources");
        e.figures().keySet().forEach(name -> sources.put(name, e.sources().get(name)));
        ObjectNode override = o.putObject("override");
        e.overridden().forEach((name, v) -> put(override, name, v));
        return o;
    }

    private static void put(ObjectNode o, String name, Object v) {
        switch (v) {
            case Long l -> o.put(name, l);
            case Integer i -> o.put(name, i);
            case Double d -> o.put(name, d);
            default -> o.put(name, String.valueOf(v));
        }
    }

    private static ApiException notFound(String id) {
        return ApiException.notFound("model_not_found", "The model catalog knows nothing of '" + id + "' (see GET /api/models).");
    }
}
