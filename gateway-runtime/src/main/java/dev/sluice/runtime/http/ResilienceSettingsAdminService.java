package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.settings.ResilienceSettingsCodec;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.settings.SettingsException;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code GET/PATCH /api/resilience} (SPEC §3, SE-4): the whole resilience settings tree, and its
 * deep-merge PATCH answered with the new tree. A bad value is a 400 naming its dotted path. Only
 * {@code "/"} is routed here, so the other {@code /api/resilience/...} groups register beside it.
 */
final class ResilienceSettingsAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final ResilienceSettingsService settings;

    ResilienceSettingsAdminService(Json json, Authenticator auth, ResilienceSettingsService settings) {
        this.json = json;
        this.auth = auth;
        this.settings = settings;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::get).patch("/", this::patch).get("/schema", this::schema);
    }

    /** Issue 33: each field's type, bounds, default and what it affects, for forms (the dashboard's). */
    private void schema(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, dev.sluice.runtime.settings.ResilienceSettingsSchemaJson.render(
                dev.sluice.runtime.resilience.ResilienceSettings.DEFAULTS));
    }

    private void get(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, settings.tree());
    }

    private void patch(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        ObjectNode tree;
        try {
            // the tree of this patch's result, not of a patch that may have followed it
            tree = ResilienceSettingsCodec.toJson(settings.patch(body));
        } catch (SettingsException e) {
            throw ApiException.badRequest(e.path(), e.getMessage());
        }
        json.send(res, 200, tree);
    }
}
