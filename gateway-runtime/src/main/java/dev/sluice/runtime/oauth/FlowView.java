package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthFlow;

/**
 * What the admin API shows of a login flow: never its verifier, {@code state}, device code or tokens.
 *
 * @param id the flow id
 * @param provider the provider
 * @param type the flow type
 * @param status {@code pending}, {@code connected}, {@code failed} or {@code expired}
 * @param authorizeUrl the URL the operator opens (PKCE), or null
 * @param userCode the code the operator enters (device), or null
 * @param verificationUri where the operator enters it (device), or null
 * @param expiresAt when the flow expires, epoch ms
 * @param connectionId the connection created or updated (connected), or null
 * @param error why the flow failed or expired, or null
 */
public record FlowView(String id, String provider, OAuthFlow type, String status, String authorizeUrl, String userCode,
        String verificationUri, long expiresAt, String connectionId, String error) {
}
