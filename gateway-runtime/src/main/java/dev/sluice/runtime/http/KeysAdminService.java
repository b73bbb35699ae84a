package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.security.KeyHasher;
import dev.sluice.runtime.store.ApiKey;
import dev.sluice.runtime.store.ApiKeyStore;
import dev.sluice.runtime.store.ConnectionStore;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code /api/keys}: gateway API keys (SPEC §3, AD-1); the secret is shown once, stored hashed. A key's
 * name, scopes, allowed connections and allowed models (issue 33) can be changed, its secret cannot.
 */
final class KeysAdminService implements HttpService {

    static final Set<String> SCOPES = Set.of("admin", "lease:exclusive");

    private final Json json;
    private final Authenticator auth;
    private final ApiKeyStore keys;
    private final ConnectionStore connections;

    /** Ends a deleted key's exclusive leases (SPEC SL-2: {@code MANAGED_KEY_REVOKED}). */
    private final java.util.function.ToIntFunction<String> revokeLeases;

    KeysAdminService(Json json, Authenticator auth, ApiKeyStore keys, ConnectionStore connections,
            java.util.function.ToIntFunction<String> revokeLeases) {
        this.revokeLeases = revokeLeases;
        this.json = json;
        this.auth = auth;
        this.keys = keys;
        this.connections = connections;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list).post("/", this::create).patch("/{id}", this::update).delete("/{id}", this::delete);
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        ArrayNode data = root.putArray("data");
        keys.list().forEach(k -> data.add(render(k)));
        json.send(res, 200, root);
    }

    private void create(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        String name = name(body.get("name"));
        ApiKey.Grants grants = grants(body, new ApiKey.Grants(List.of(), List.of(), List.of()));
        String secret = KeyHasher.generate(KeyHasher.CLIENT_KEY_PREFIX);
        ApiKey key = keys.create(name, KeyHasher.hash(secret), KeyHasher.preview(secret), grants);
        ObjectNode out = render(key);
        out.put("key", secret);
        json.send(res, 201, out);
    }

    /** Issue 33: renames a key or replaces its scopes, allowed connections or models; what the body leaves out stays. */
    private void update(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String id = req.path().pathParameters().get("id");
        ApiKey current = keys.list().stream().filter(k -> k.id().equals(id)).findFirst()
                .orElseThrow(() -> ApiException.notFound("not_found", "API key '" + id + "' does not exist."));
        ObjectNode body = json.objectBody(req);
        for (var it = body.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!EDITABLE.contains(f)) {
                throw ApiException.badRequest(f, "'" + f + "' cannot be changed (editable: name, scopes, allowedConnections,"
                        + " allowedModels; the secret never changes: create a new key).");
            }
        }
        String name = body.has("name") ? name(body.get("name")) : current.name();
        ApiKey.Grants grants = grants(body, current.grants());
        ApiKey updated = keys.update(id, name, grants)
                .orElseThrow(() -> ApiException.notFound("not_found", "API key '" + id + "' does not exist."));
        json.send(res, 200, render(updated));
    }

    private static final Set<String> EDITABLE = Set.of("name", "scopes", "allowedConnections", "allowedModels");

    private static String name(JsonNode nameNode) {
        if (nameNode == null || nameNode.isNull()) {
            throw ApiException.badRequest("name", "'name' is required.");
        }
        if (!nameNode.isTextual() || nameNode.asText().isBlank()) {
            throw ApiException.badRequest("name", "'name' must be a non-empty string.");
        }
        AdminStrings.name("name", nameNode.asText());
        return nameNode.asText().strip();
    }

    /** The body's grants, each field that is absent taken from {@code current}. */
    private ApiKey.Grants grants(ObjectNode body, ApiKey.Grants current) {
        List<String> scopes = body.has("scopes") ? stringList(body, "scopes") : current.scopes();
        for (String s : scopes) {
            if (!SCOPES.contains(s)) {
                throw ApiException.badRequest("scopes", "'scopes' contains unknown scope '" + s + "' (known: admin, lease:exclusive).");
            }
        }
        List<String> allowed = body.has("allowedConnections") ? stringList(body, "allowedConnections") : current.allowedConnections();
        if (body.has("allowedConnections")) {
            for (String id : allowed) {
                if (connections.find(id).isEmpty()) {
                    throw ApiException.badRequest("allowedConnections", "'allowedConnections' names connection '" + id
                            + "', which does not exist.");
                }
            }
        }
        List<String> models = body.has("allowedModels") ? stringList(body, "allowedModels") : current.allowedModels();
        if (body.has("allowedModels")) {
            if (models.size() > MAX_ALLOWED_MODELS) {
                throw ApiException.badRequest("allowedModels", "'allowedModels' holds " + models.size() + " entries; at most "
                        + MAX_ALLOWED_MODELS + " are allowed.");
            }
            for (String m : models) {
                if (m.length() > AdminStrings.MAX_NAME_CHARS || m.strip().length() != m.length()
                        || m.indexOf('*') >= 0 && m.indexOf('*') != m.length() - 1) {
                    throw ApiException.badRequest("allowedModels", "'allowedModels' entry '" + shorten(m) + "' must be a model"
                            + " name (provider/model, an alias or a combo) or a prefix ending in '*', without surrounding blanks,"
                            + " at most " + AdminStrings.MAX_NAME_CHARS + " characters.");
                }
            }
        }
        return new ApiKey.Grants(scopes, allowed, models);
    }

    /** At most this many {@code allowedModels} entries per key: each request checks them in turn. */
    static final int MAX_ALLOWED_MODELS = 100;

    private static String shorten(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "…";
    }

    private void delete(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String id = req.path().pathParameters().get("id");
        if (!keys.delete(id)) {
            throw ApiException.notFound("not_found", "API key '" + id + "' does not exist.");
        }
        revokeLeases.applyAsInt(id);
        json.send(res, 200, json.object().put("id", id).put("deleted", true));
    }

    private ObjectNode render(ApiKey k) {
        ObjectNode o = json.object();
        o.put("id", k.id());
        o.put("name", k.name());
        o.put("keyPreview", k.keyPreview());
        ArrayNode scopes = o.putArray("scopes");
        k.scopes().forEach(scopes::add);
        ArrayNode allowed = o.putArray("allowedConnections");
        k.allowedConnections().forEach(allowed::add);
        ArrayNode models = o.putArray("allowedModels");
        k.allowedModels().forEach(models::add);
        o.put("createdAt", k.createdAt());
        return o;
    }

    private static List<String> stringList(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return List.of();
        }
        if (!n.isArray()) {
            throw ApiException.badRequest(field, "'" + field + "' must be an array of strings.");
        }
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode e : n) {
            if (!e.isTextual() || e.asText().isBlank()) {
                throw ApiException.badRequest(field, "'" + field + "' must be an array of non-empty strings.");
            }
            out.add(e.asText());
        }
        return new ArrayList<>(out);
    }
}
