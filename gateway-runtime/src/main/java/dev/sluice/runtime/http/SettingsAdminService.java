package dev.sluice.runtime.http;

import dev.sluice.runtime.settings.GeneralSettingsService;
import dev.sluice.runtime.settings.SettingsException;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * {@code GET/PATCH /api/settings} (SPEC §3): the operators' provider error rules (ER-5), aliases, prices,
 * session affinity and emergency fallback; {@code GET /api/settings/schema} describes them (issue 33).
 */
final class SettingsAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final GeneralSettingsService settings;

    SettingsAdminService(Json json, Authenticator auth, GeneralSettingsService settings) {
        this.json = json;
        this.auth = auth;
        this.settings = settings;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::get).patch("/", this::patch).get("/schema", this::schema);
    }

    /** Issue 33: the fields with their types, bounds and descriptions, for forms built from the server. */
    private void schema(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, dev.sluice.runtime.settings.GeneralSettingsSchemaJson.render(settings));
    }

    private void get(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, settings.tree());
    }

    private void patch(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        try {
            json.send(res, 200, settings.patch(json.objectBody(req)));
        } catch (SettingsException e) {
            throw ApiException.badRequest(e.path(), e.getMessage());
        }
    }
}
