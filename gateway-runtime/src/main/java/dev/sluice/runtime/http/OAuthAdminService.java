package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.runtime.oauth.FlowView;
import dev.sluice.runtime.oauth.LoginException;
import dev.sluice.runtime.oauth.LoginFlows;
import dev.sluice.runtime.oauth.StartOptions;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * {@code /api/oauth}: subscription-account logins (issue 36). Every operation takes the admin key
 * except the callback, which the operator's browser reaches from the provider's redirect: there
 * the single-use {@code state} is what proves the request belongs to a login the admin started.
 */
final class OAuthAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final LoginFlows flows;

    OAuthAdminService(Json json, Authenticator auth, LoginFlows flows) {
        this.json = json;
        this.auth = auth;
        this.flows = flows;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/callback", this::callback)
                .get("/providers", this::providers)
                .post("/flows/{flowId}/code", this::code)
                .get("/flows/{flowId}", this::status)
                .post("/{provider}/start", this::start);
    }

    /** Issue 33: the providers with a login and their flows, so a page need not guess them. */
    private void providers(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        com.fasterxml.jackson.databind.node.ArrayNode data = root.putArray("data");
        flows.offered().forEach((provider, types) -> {
            ObjectNode o = data.addObject().put("provider", provider);
            com.fasterxml.jackson.databind.node.ArrayNode list = o.putArray("flows");
            types.forEach(t -> list.add(t.wireName()));
        });
        json.send(res, 200, root);
    }

    private void start(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        String provider = req.path().pathParameters().get("provider");
        ObjectNode body = req.content().hasEntity() ? json.objectBody(req) : json.object();
        String flow = ConnectionFields.optionalString(body, "flow");
        OAuthFlow type = null;
        if (flow != null) {
            type = switch (flow) {
                case "pkce" -> OAuthFlow.PKCE;
                case "device" -> OAuthFlow.DEVICE;
                default -> throw ApiException.badRequest("flow", "'flow' must be \"pkce\" or \"device\".");
            };
        }
        String name = ConnectionFields.optionalString(body, "name");
        if (name != null && name.isBlank()) {
            throw ApiException.badRequest("name", "'name' must be a non-empty string.");
        }
        Integer priority = body.hasNonNull("priority") ? ConnectionFields.optionalInt(body, "priority", 1, 1, 1_000_000) : null;
        StartOptions options = new StartOptions(name == null ? null : name.strip(), priority, ConnectionFields.proxyUrl(body),
                ConnectionFields.url(body, "baseUrl", Set.of("http", "https")), type);
        FlowView view = flows.start(provider, options);
        ObjectNode out = json.object().put("flowId", view.id()).put("type", view.type().wireName());
        if (view.authorizeUrl() != null) {
            out.put("authorizeUrl", view.authorizeUrl());
        }
        if (view.userCode() != null) {
            out.put("userCode", view.userCode()).put("verificationUri", view.verificationUri());
        }
        out.put("expiresAt", view.expiresAt());
        json.send(res, 200, out);
    }

    private void code(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode body = json.objectBody(req);
        String callbackUrl = ConnectionFields.optionalString(body, "callbackUrl");
        String code = ConnectionFields.optionalString(body, "code");
        String state = ConnectionFields.optionalString(body, "state");
        if (callbackUrl == null && code == null) {
            throw ApiException.badRequest("code", "'code' or 'callbackUrl' is required.");
        }
        json.send(res, 200, render(flows.submit(req.path().pathParameters().get("flowId"), code, state, callbackUrl)));
    }

    private void status(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        json.send(res, 200, render(flows.status(req.path().pathParameters().get("flowId"))));
    }

    private void callback(ServerRequest req, ServerResponse res) {
        var query = req.query();
        String state = query.first("state").orElse(null);
        String code = query.first("code").orElse(null);
        String error = query.first("error").orElse(null);
        // the browser shows this answer: a page, not the API's JSON envelope, whatever happened
        int status;
        String message;
        try {
            FlowView view = flows.callback(state, code, error);
            status = 200;
            message = "connected".equals(view.status())
                    ? "Connected: the " + view.provider() + " account is connection " + view.connectionId() + ". You can close this page."
                    : "The login failed: " + view.error();
        } catch (LoginException e) {
            status = e.status();
            message = "The login failed: " + e.getMessage();
        }
        String page = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Sluice login</title></head><body><p>"
                + escape(message) + "</p></body></html>";
        res.status(Status.create(status));
        res.header(HeaderNames.CONTENT_TYPE, "text/html; charset=utf-8");
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.header("Content-Security-Policy", "default-src 'none'");
        res.send(page.getBytes(StandardCharsets.UTF_8));
    }

    private JsonNode render(FlowView view) {
        ObjectNode out = json.object().put("flowId", view.id()).put("provider", view.provider()).put("type", view.type().wireName())
                .put("status", view.status()).put("expiresAt", view.expiresAt());
        if (view.connectionId() != null) {
            out.put("connectionId", view.connectionId());
        }
        if (view.error() != null) {
            out.put("error", view.error());
        }
        if (view.userCode() != null && "pending".equals(view.status())) {
            out.put("userCode", view.userCode()).put("verificationUri", view.verificationUri());
        }
        return out;
    }

    /** HTML-escapes text (the message may echo what the provider or the browser sent). */
    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
