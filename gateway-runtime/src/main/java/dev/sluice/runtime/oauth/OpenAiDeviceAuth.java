package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.TokenEncoding;
import dev.sluice.runtime.oauth.TokenEndpoint.Issued;
import dev.sluice.runtime.oauth.TokenEndpoint.Refused;
import dev.sluice.runtime.oauth.TokenEndpoint.Reply;
import dev.sluice.runtime.oauth.TokenEndpoint.Unreachable;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.toolkit.json.Json;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * OpenAI's device authorization as Codex CLI runs it (openai/codex
 * {@code codex-rs/login/src/device_code_auth.rs}: {@code request_user_code}, {@code poll_for_token},
 * {@code complete_device_code_login}). It is not RFC 8628: the poll has its own endpoint and JSON
 * body, "not yet" is a {@code 403} or {@code 404} with no error code, there is no
 * {@code slow_down}, and the grant is an authorization code with a PKCE verifier the server
 * minted, exchanged at the token endpoint like a PKCE login's.
 *
 * <p>Where Codex gives up and a gateway should not, this differs, on purpose: a {@code 5xx} or a
 * transport failure is polled again after the interval (Codex ends the login), and a {@code 429}
 * lengthens the interval as a {@code slow_down} would. Codex polls until 15 minutes have passed;
 * here the flow's own expiry (10 minutes) bounds it.
 */
final class OpenAiDeviceAuth implements DeviceGrant {

    private final TokenEndpoint endpoint;

    OpenAiDeviceAuth(TokenEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    @Override
    public void request(LoginFlow flow, EgressRoute route) {
        OAuthLogin login = flow.login;
        Reply reply = endpoint.post(route, login.deviceUrl(), TokenEncoding.JSON, Map.of("client_id", login.clientId()));
        if (reply instanceof Refused r && r.status() == 404) {
            // Codex's own words for it
            throw new LoginException(502, "device_request_failed", null, "The device authorization request of '" + login.provider()
                    + "' failed: device code login is not enabled for this server (HTTP 404); use the pkce flow or check "
                    + "the oauthDeviceUrl setting.");
        }
        if (!(reply instanceof Issued(Map<String, Object> answer))) {
            throw Rfc8628Device.refused(login, reply);
        }
        flow.deviceCode = Json.string(answer, "device_auth_id");
        String user = Json.string(answer, "user_code");
        flow.userCode = user != null ? user : Json.string(answer, "usercode");
        flow.verificationUri = login.deviceVerificationUrl();
        if (flow.deviceCode == null || flow.userCode == null) {
            throw new LoginException(502, "device_request_failed", null, "The device authorization answer of '" + login.provider()
                    + "' lacks device_auth_id or user_code.");
        }
        Long interval = seconds(answer.get("interval"));
        // Codex polls at the interval given, 0 included; with none it waits 5 s
        flow.intervalMs = interval == null || interval < 0 ? DEFAULT_INTERVAL_MS : interval * 1000L;
    }

    @Override
    public Poll poll(LoginFlow flow, EgressRoute route) {
        OAuthLogin login = flow.login;
        Map<String, String> body = new LinkedHashMap<>();
        body.put("device_auth_id", flow.deviceCode);
        body.put("user_code", flow.userCode);
        Reply reply = endpoint.post(route, login.devicePollUrl(), TokenEncoding.JSON, body);
        switch (reply) {
            case Unreachable u -> {
                return new Retry(u.reason());
            }
            case Refused r when r.status() == 403 || r.status() == 404 -> {
                return new Pending(0);
            }
            case Refused r when r.status() == 429 -> {
                return new Pending(Rfc8628Device.SLOW_DOWN_STEP_MS);
            }
            case Refused r when r.status() >= 500 -> {
                return new Retry(r.reason());
            }
            case Refused r -> {
                return new Failed(r.reason());
            }
            case Issued(Map<String, Object> answer) -> {
                String code = Json.string(answer, "authorization_code");
                String verifier = Json.string(answer, "code_verifier");
                if (code == null || verifier == null) {
                    return new Failed("the device authorization answer lacks authorization_code or code_verifier");
                }
                Map<String, String> grant = new LinkedHashMap<>();
                grant.put("grant_type", "authorization_code");
                grant.put("code", code);
                grant.put("redirect_uri", login.deviceRedirectUri());
                grant.put("client_id", login.clientId());
                grant.put("code_verifier", verifier);
                if (login.clientSecret() != null) {
                    grant.put("client_secret", login.clientSecret());
                }
                return new Tokens(endpoint.post(route, login.tokenUrl(), login.tokenEncoding(), grant));
            }
        }
    }

    /** A number of seconds sent as a number or a numeric string (Codex's {@code deserialize_interval}). */
    private static Long seconds(Object v) {
        if (v instanceof Number n) {
            return n.longValue();
        }
        if (v instanceof String s) {
            try {
                return Long.parseLong(s.strip());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }
}
