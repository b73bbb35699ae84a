package dev.sluice.testkit.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.oauth.FlowView;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A PKCE login the host started ({@link LoginDriver#startPkce()}): the authorize URL the operator
 * would open, and the three ways the host is given the code — the provider's redirect to
 * {@code GET /api/oauth/callback} ({@link #redirect}), a pasted code ({@link #enterCode}) or a
 * pasted redirect URL ({@link #pasteCallbackUrl}), each the admin API's own step. The
 * authorization server is the test's: it sees the code exchange on its token endpoint.
 */
public final class PkceLogin {

    private final LoginDriver driver;
    private final FlowView started;
    private final Map<String, String> params;

    PkceLogin(LoginDriver driver, FlowView started) {
        this.driver = driver;
        this.started = started;
        this.params = Collections.unmodifiableMap(query(started.authorizeUrl()));
    }

    /** @return the flow id ({@code POST /api/oauth/flows/{flowId}/code}) */
    public String flowId() {
        return started.id();
    }

    /** @return the URL the operator opens: the authorize endpoint with the login's parameters */
    public String authorizeUrl() {
        return started.authorizeUrl();
    }

    /**
     * The authorize URL's query, decoded: {@code client_id}, {@code response_type},
     * {@code redirect_uri}, {@code scope}, {@code code_challenge}, {@code code_challenge_method},
     * {@code state} and the login's extra parameters.
     *
     * @return parameter to value
     */
    public Map<String, String> authorizeParams() {
        return params;
    }

    /** @return the single-use {@code state} the host expects back */
    public String state() {
        return params.get("state");
    }

    /** @return the S256 {@code code_challenge} sent to the authorize endpoint */
    public String codeChallenge() {
        return params.get("code_challenge");
    }

    /**
     * Whether a {@code code_verifier} (as the token endpoint received it) is the one this login's
     * challenge was made from: {@code BASE64URL(SHA256(verifier)) == code_challenge} (RFC 7636 §4.6),
     * computed here independently of the host.
     *
     * @param codeVerifier the verifier the code exchange carried
     * @return whether it matches
     */
    public boolean challengeMatches(String codeVerifier) {
        return codeVerifier != null && s256(codeVerifier).equals(codeChallenge());
    }

    /**
     * The S256 challenge of a verifier, {@code BASE64URL(SHA256(ASCII(verifier)))} (RFC 7636 §4.2),
     * computed here independently of the host: e.g. to check a device login that sends a PKCE pair
     * (the challenge in the device request, the verifier in each poll).
     *
     * @param codeVerifier the verifier
     * @return the challenge
     */
    public static String s256(String codeVerifier) {
        requireNonNull(codeVerifier, "codeVerifier is null");
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(codeVerifier.getBytes(StandardCharsets.US_ASCII));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /**
     * The URL the provider would send the browser to: the login's redirect URI with {@code code}
     * and this login's {@code state}, for {@link #pasteCallbackUrl}.
     *
     * @param code the authorization code
     * @return the URL
     */
    public String callbackUrl(String code) {
        String redirect = requireNonNull(driver.login().redirectUri(), "the login has no redirectUri");
        return redirect + (redirect.contains("?") ? '&' : '?') + "code=" + enc(requireNonNull(code, "code is null")) + "&state="
                + enc(state());
    }

    /**
     * The operator pastes the code the provider's page shows ({@code code}, or Claude's
     * {@code code#state}): {@code POST /api/oauth/flows/{id}/code} with {@code {"code"}}. The host
     * exchanges it at the token endpoint and the plugin's mapper turns the answer into the connection.
     *
     * @param code the code
     * @return the login's end (connected, or failed with why)
     * @throws LoginRefusedException when the host refuses the step (the flow already ended: 409)
     */
    public LoginResult enterCode(String code) {
        return driver.result(driver.submit(started.id(), code, null, null));
    }

    /**
     * The operator pastes the code and a {@code state}: {@code {"code", "state"}}. A state other
     * than this login's fails the flow without calling the token endpoint.
     *
     * @param code the code
     * @param state the state
     * @return the login's end
     * @throws LoginRefusedException when the host refuses the step
     */
    public LoginResult enterCode(String code, String state) {
        return driver.result(driver.submit(started.id(), code, state, null));
    }

    /**
     * The operator pastes the whole URL the browser was sent to: {@code {"callbackUrl"}}.
     *
     * @param callbackUrl the URL, with {@code code} (or {@code error}) and {@code state}
     * @return the login's end
     * @throws LoginRefusedException when the host refuses the step (no code in the URL: 400)
     */
    public LoginResult pasteCallbackUrl(String callbackUrl) {
        return driver.result(driver.submit(started.id(), null, null, requireNonNull(callbackUrl, "callbackUrl is null")));
    }

    /**
     * The provider redirects the browser to the host: {@code GET /api/oauth/callback?code=…&state=…}.
     *
     * @param code the code, or null
     * @param state the state
     * @return the login's end
     * @throws LoginRefusedException 400 when the state is unknown, expired or already used
     */
    public LoginResult redirect(String code, String state) {
        return driver.result(driver.callback(state, code, null));
    }

    /**
     * The provider redirects with {@code error=…} (the account owner declined).
     *
     * @param error the OAuth error code
     * @return the login's end (failed)
     * @throws LoginRefusedException 400 when this login's state is no longer pending
     */
    public LoginResult redirectWithError(String error) {
        return driver.result(driver.callback(state(), null, requireNonNull(error, "error is null")));
    }

    /**
     * The flow's status now, as {@code GET /api/oauth/flows/{id}}.
     *
     * @return the status
     * @throws LoginRefusedException 404 once the flow is forgotten
     */
    public LoginResult status() {
        return driver.result(driver.status(started.id()));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static Map<String, String> query(String url) {
        Map<String, String> out = new LinkedHashMap<>();
        String raw = URI.create(url).getRawQuery();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                int eq = pair.indexOf('=');
                String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                out.putIfAbsent(k, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }
}
