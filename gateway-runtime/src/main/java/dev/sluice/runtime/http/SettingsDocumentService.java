package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.settings.GeneralSettingsSchemaJson;
import dev.sluice.runtime.settings.GeneralSettingsService;
import dev.sluice.runtime.settings.ResilienceSettingsCodec;
import dev.sluice.runtime.settings.ResilienceSettingsSchemaJson;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.settings.SettingsException;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.function.Supplier;

/**
 * One settings document over the admin API (issue 35: {@code /api/resilience} and {@code /api/settings}
 * are the same three operations): {@code GET /} the whole document, {@code PATCH /} a deep merge
 * answered with the document as that patch left it (a bad value is a 400 naming its dotted path), and
 * {@code GET /schema} each field's type, bounds, default and description (issue 33). Only {@code "/"}
 * and {@code "/schema"} are routed here, so other groups under the same prefix register beside it.
 */
final class SettingsDocumentService implements HttpService {

    /** What one settings document offers. */
    interface Document {
        /** @return the whole document */
        ObjectNode tree();

        /**
         * @param body the deep-merge patch
         * @return the document as this patch left it (not as a patch that followed it did)
         * @throws SettingsException naming the dotted path of a bad value
         */
        ObjectNode patch(ObjectNode body);

        /** @return the document's schema */
        ObjectNode schema();
    }

    private final Json json;
    private final Authenticator auth;
    private final Document document;

    SettingsDocumentService(Json json, Authenticator auth, Document document) {
        this.json = json;
        this.auth = auth;
        this.document = document;
    }

    /** The resilience settings tree (SPEC §3, SE-4). */
    static Document resilience(ResilienceSettingsService settings) {
        return document(settings::tree, body -> ResilienceSettingsCodec.toJson(settings.patch(body)),
                () -> ResilienceSettingsSchemaJson.render(ResilienceSettings.DEFAULTS));
    }

    /** The general settings: provider error rules (ER-5), aliases, prices, session affinity, emergency fallback. */
    static Document general(GeneralSettingsService settings) {
        return document(settings::tree, settings::patch, () -> GeneralSettingsSchemaJson.render(settings));
    }

    private static Document document(Supplier<ObjectNode> tree, java.util.function.Function<ObjectNode, ObjectNode> patch,
            Supplier<ObjectNode> schema) {
        return new Document() {
            @Override
            public ObjectNode tree() {
                return tree.get();
            }

            @Override
            public ObjectNode patch(ObjectNode body) {
                return patch.apply(body);
            }

            @Override
            public ObjectNode schema() {
                return schema.get();
            }
        };
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::get).patch("/", this::patch).get("/schema", this::schema);
    }

    private void get(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, document.tree());
    }

    private void patch(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        ObjectNode tree;
        try {
            tree = document.patch(body);
        } catch (SettingsException e) {
            throw ApiException.badRequest(e.path(), e.getMessage());
        }
        json.send(res, 200, tree);
    }

    private void schema(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, document.schema());
    }
}
