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

/** {@code /api/keys}: gateway API keys (SPEC §3, AD-1); the secret is shown once, stored hashed. */
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
        rules.get("/", this::list).post("/", this::create).delete("/{id}", this::delete);
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
        JsonNode nameNode = body.get("name");
        if (nameNode == null || nameNode.isNull()) {
            throw ApiException.badRequest("name", "'name' is required.");
        }
        if (!nameNode.isTextual() || nameNode.asText().isBlank()) {
            throw ApiException.badRequest("name", "'name' must be a non-empty string.");
        }
        AdminStrings.name("name", nameNode.asText());
        List<String> scopes = stringList(body, "scopes");
        for (String s : scopes) {
            if (!SCOPES.contains(s)) {
                throw ApiException.badRequest("scopes", "'scopes' contains unknown scope '" + s + "' (known: admin, lease:exclusive).");
            }
        }
        List<String> allowed = stringList(body, "allowedConnections");
        for (String id : allowed) {
            if (connections.find(id).isEmpty()) {
                throw ApiException.badRequest("allowedConnections", "'allowedConnections' names connection '" + id + "', which does not exist.");
            }
        }
        String secret = KeyHasher.generate(KeyHasher.CLIENT_KEY_PREFIX);
        ApiKey key = keys.create(nameNode.asText().strip(), KeyHasher.hash(secret), KeyHasher.preview(secret), scopes, allowed);
        ObjectNode out = render(key);
        out.put("key", secret);
        json.send(res, 201, out);
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
