package dev.sluice.api.oauth;

import dev.sluice.api.Experimental;
import java.util.Locale;

/** The login flows the host runs. */
@Experimental("issue 36: subscription logins are new")
public enum OAuthFlow {
    /**
     * Authorization code with PKCE S256 (RFC 7636): the operator opens the authorize URL, the
     * provider redirects to the redirect URI with {@code code} and {@code state}, which reach the
     * host by its callback or pasted by the operator.
     */
    PKCE,
    /** Device authorization grant (RFC 8628): the operator enters a user code; the host polls. */
    DEVICE;

    /**
     * The name in the admin API ({@code pkce}, {@code device}).
     *
     * @return the wire name
     */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
