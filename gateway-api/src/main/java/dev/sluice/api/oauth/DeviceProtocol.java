package dev.sluice.api.oauth;

import dev.sluice.api.Experimental;

/**
 * How a device-code login talks to its authorization server. The operator sees the same thing
 * either way (a user code to enter at a verification URL while the host polls); the requests
 * differ.
 */
@Experimental("issue 36: subscription logins are new")
public enum DeviceProtocol {
    /**
     * RFC 8628: the device endpoint answers {@code device_code}, {@code user_code},
     * {@code verification_uri} and {@code interval}; the host polls the token endpoint with the
     * {@code urn:ietf:params:oauth:grant-type:device_code} grant and reads
     * {@code authorization_pending}, {@code slow_down}, {@code expired_token} and
     * {@code access_denied}. Qwen Code's and most servers' flow.
     */
    RFC_8628,
    /**
     * OpenAI's device authorization, as Codex CLI runs it ({@code codex-rs/login/src/device_code_auth.rs}):
     * JSON {@code {"client_id"}} to the device endpoint answers {@code device_auth_id},
     * {@code user_code} and {@code interval} (a number or a numeric string); the host polls the
     * {@linkplain OAuthLogin#devicePollUrl() poll endpoint} with JSON
     * {@code {"device_auth_id","user_code"}}, where {@code 403} and {@code 404} mean "not yet"; a
     * {@code 2xx} carries {@code authorization_code} and the server-minted {@code code_verifier},
     * which the host exchanges at the token endpoint with the {@code authorization_code} grant and
     * the {@linkplain OAuthLogin#deviceRedirectUri() device redirect URI}. The operator enters the
     * code at the {@linkplain OAuthLogin#deviceVerificationUrl() verification URL}, which the
     * server does not name.
     */
    OPENAI_DEVICE_AUTH
}
