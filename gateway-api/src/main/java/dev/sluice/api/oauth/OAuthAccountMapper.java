package dev.sluice.api.oauth;

import dev.sluice.api.Experimental;

/**
 * Turns a token answer into a connection's credentials and identity (the provider's hook). The
 * host calls it after a login and after every refresh; it must not block or call out.
 */
@Experimental("issue 36: subscription logins are new")
@FunctionalInterface
public interface OAuthAccountMapper {

    /**
     * The RFC 6749 reading: {@code access_token}, {@code refresh_token}, {@code expires_in}, and
     * {@code resource_url} when present (Qwen's); no identity.
     */
    OAuthAccountMapper STANDARD = answer -> OAuthAccount.standard(answer).build();

    /**
     * Maps an answer.
     *
     * @param answer the token endpoint's answer
     * @return the account
     * @throws IllegalArgumentException when the answer lacks what the provider needs (the flow
     *     fails with the message, which must not contain a token)
     */
    OAuthAccount map(OAuthTokenAnswer answer);
}
