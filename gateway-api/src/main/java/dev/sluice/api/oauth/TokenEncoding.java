package dev.sluice.api.oauth;

import dev.sluice.api.Experimental;

/** How the host encodes the body of its token-endpoint requests. */
@Experimental("issue 36: subscription logins are new")
public enum TokenEncoding {
    /** {@code application/x-www-form-urlencoded}, as RFC 6749 says. */
    FORM,
    /** {@code application/json}, as Anthropic's token endpoint takes it. */
    JSON
}
