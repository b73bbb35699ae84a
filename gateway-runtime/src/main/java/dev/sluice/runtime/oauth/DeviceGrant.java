package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.DeviceProtocol;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.runtime.oauth.TokenEndpoint.Reply;
import dev.sluice.runtime.upstream.EgressRoute;

/**
 * The requests of one device-code protocol: asking for the user code, and one poll. The timing
 * (interval, expiry, who polls when) stays with {@link LoginFlows}; a grant only says what the
 * server answered. One per {@link DeviceProtocol}.
 */
sealed interface DeviceGrant permits Rfc8628Device, OpenAiDeviceAuth {

    /** Device polling interval when the server names none (RFC 8628 §3.2, and Codex's default). */
    long DEFAULT_INTERVAL_MS = 5_000L;

    /**
     * The grant of a login's protocol.
     *
     * @param login the login
     * @param endpoint the authorization-server client
     * @return the grant
     */
    static DeviceGrant of(OAuthLogin login, TokenEndpoint endpoint) {
        return switch (login.deviceProtocol()) {
            case RFC_8628 -> new Rfc8628Device(endpoint);
            case OPENAI_DEVICE_AUTH -> new OpenAiDeviceAuth(endpoint);
        };
    }

    /**
     * Asks for a user code and fills the flow's device code (the server's handle of the
     * authorization, secret), user code, verification URI and interval.
     *
     * @param flow the new flow
     * @param route the flow's egress route
     * @throws LoginException 502 when the server refuses or answers without what the protocol needs
     */
    void request(LoginFlow flow, EgressRoute route);

    /**
     * Polls once.
     *
     * @param flow the pending flow (its lock held)
     * @param route the flow's egress route
     * @return what the server said
     */
    Poll poll(LoginFlow flow, EgressRoute route);

    /** What one poll came back with. */
    sealed interface Poll {
    }

    /**
     * Not yet: poll again after the interval, lengthened by {@code slowerByMs}.
     *
     * @param slowerByMs what to add to the interval (RFC 8628's {@code slow_down})
     */
    record Pending(long slowerByMs) implements Poll {
    }

    /**
     * No usable answer this time (transport failure, a 5xx): poll again after the interval.
     *
     * @param reason why, without secrets
     */
    record Retry(String reason) implements Poll {
    }

    /**
     * The user code expired at the server.
     *
     * @param reason why
     */
    record Expired(String reason) implements Poll {
    }

    /**
     * The server refused the login for good.
     *
     * @param reason why, without secrets
     */
    record Failed(String reason) implements Poll {
    }

    /**
     * The authorization is granted: the token endpoint's reply, to become the connection.
     *
     * @param reply the token answer (or the exchange's refusal)
     */
    record Tokens(Reply reply) implements Poll {
    }
}
