package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.runtime.oauth.TokenEndpoint.Issued;
import dev.sluice.runtime.oauth.TokenEndpoint.Refused;
import dev.sluice.runtime.oauth.TokenEndpoint.Reply;
import dev.sluice.runtime.oauth.TokenEndpoint.Unreachable;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.toolkit.json.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * RFC 8628's device authorization grant (Qwen Code's flow, with its PKCE pair when the login asks
 * for one): {@code device_code} polled at the token endpoint, {@code authorization_pending},
 * {@code slow_down}, {@code expired_token} and {@code access_denied} read as the RFC says.
 */
final class Rfc8628Device implements DeviceGrant {

    static final String DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";
    /** What each {@code slow_down} adds to the interval (RFC 8628 §3.5). */
    static final long SLOW_DOWN_STEP_MS = 5_000L;

    private final TokenEndpoint endpoint;

    Rfc8628Device(TokenEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public void request(LoginFlow flow, EgressRoute route) {
        OAuthLogin login = flow.login;
        Map<String, String> params = new LinkedHashMap<>();
        params.put("client_id", login.clientId());
        if (!login.scopes().isEmpty()) {
            params.put("scope", String.join(" ", login.scopes()));
        }
        if (flow.verifier != null) {
            params.put("code_challenge", Pkce.challenge(flow.verifier));
            params.put("code_challenge_method", "S256");
        }
        Reply reply = endpoint.post(route, login.deviceUrl(), login.tokenEncoding(), params);
        if (!(reply instanceof Issued(Map<String, Object> answer))) {
            throw refused(login, reply);
        }
        flow.deviceCode = Json.string(answer, "device_code");
        flow.userCode = Json.string(answer, "user_code");
        String uri = first(Json.string(answer, "verification_uri_complete"), Json.string(answer, "verification_uri"),
                Json.string(answer, "verification_url"), login.deviceVerificationUrl());
        flow.verificationUri = uri;
        if (flow.deviceCode == null || flow.userCode == null || flow.verificationUri == null) {
            throw new LoginException(502, "device_request_failed", null, "The device authorization answer of '" + login.provider()
                    + "' lacks device_code, user_code or verification_uri.");
        }
        Long interval = Json.number(answer, "interval");
        flow.intervalMs = interval == null || interval <= 0 ? DEFAULT_INTERVAL_MS : interval * 1000L;
    }

    @Override
    public Poll poll(LoginFlow flow, EgressRoute route) {
        OAuthLogin login = flow.login;
        Map<String, String> grant = new LinkedHashMap<>();
        grant.put("grant_type", DEVICE_GRANT);
        grant.put("device_code", flow.deviceCode);
        grant.put("client_id", login.clientId());
        if (login.clientSecret() != null) {
            grant.put("client_secret", login.clientSecret());
        }
        if (flow.verifier != null) {
            grant.put("code_verifier", flow.verifier);
        }
        Reply reply = endpoint.post(route, login.tokenUrl(), login.tokenEncoding(), grant);
        if (reply instanceof Refused r && r.error() != null) {
            return switch (r.error()) {
                case "authorization_pending" -> new Pending(0);
                case "slow_down" -> new Pending(SLOW_DOWN_STEP_MS);
                case "expired_token" -> new Expired("the user code expired before it was entered");
                case "access_denied" -> new Failed("the account owner denied access");
                default -> new Failed(r.reason());
            };
        }
        if (reply instanceof Unreachable u) {
            return new Retry(u.reason());
        }
        return new Tokens(reply);
    }

    static LoginException refused(OAuthLogin login, Reply reply) {
        String why = reply instanceof Refused r ? r.reason() : reply instanceof Unreachable u ? u.reason() : "no usable answer";
        return new LoginException(502, "device_request_failed", null, "The device authorization request of '" + login.provider()
                + "' failed: " + why + ".");
    }

    private static String first(String... values) {
        for (String v : values) {
            if (v != null) {
                return v;
            }
        }
        return null;
    }
}
