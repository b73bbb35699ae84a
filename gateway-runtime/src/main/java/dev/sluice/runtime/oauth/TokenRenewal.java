package dev.sluice.runtime.oauth;

import dev.sluice.runtime.store.Connection;

/**
 * What the dispatcher asks of OAuth token renewal (issue 36): tokens good to send before an
 * attempt, and a renewed token after the upstream refused one with {@code 401}.
 */
public interface TokenRenewal {

    /** No renewal: connections go out as they are, and a {@code 401} is never retried. */
    TokenRenewal NONE = new TokenRenewal() {
        @Override
        public Connection beforeAttempt(Connection c) {
            return c;
        }

        @Override
        public Connection afterUnauthorized(Connection c) {
            return null;
        }
    };

    /**
     * The connection with tokens good to send: itself, or with renewed tokens when its token is due.
     *
     * @param c the connection an attempt is about to use
     * @return the connection to build the attempt from
     */
    Connection beforeAttempt(Connection c);

    /**
     * After the upstream answered {@code 401} to the access token {@code c} carries: the connection
     * with another token to send the attempt once more with (renewed now, or by a renewal that
     * finished meanwhile), or null when there is none (not an OAuth connection with a login, no
     * refresh token, the refresh failed or is backing off).
     *
     * @param c the connection exactly as the refused attempt used it
     * @return the connection to retry with, or null
     */
    Connection afterUnauthorized(Connection c);
}
