package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One login in progress, in memory only. Its secrets (verifier, {@code state}, device code) never
 * leave this object except towards the authorization server. A flow moves once, from
 * {@link Status#PENDING} to one of the ends; {@link #end} refuses any other move. Fields change
 * only under {@link #lock}.
 */
final class LoginFlow {

    /** A flow's status. */
    enum Status {
        PENDING, CONNECTED, FAILED, EXPIRED;

        String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    final ReentrantLock lock = new ReentrantLock();
    final String id;
    final OAuthLogin login;
    final OAuthFlow type;
    final StartOptions options;
    final String state;
    final String verifier;
    final long expiresAt;
    String authorizeUrl;
    /** The server's secret handle of a device authorization: RFC 8628's {@code device_code}, OpenAI's {@code device_auth_id}. */
    String deviceCode;
    String userCode;
    String verificationUri;
    long intervalMs;
    long nextPollAt;
    private volatile Status status = Status.PENDING;
    private volatile long endedAt;
    private volatile String connectionId;
    private volatile String error;

    LoginFlow(String id, OAuthLogin login, OAuthFlow type, StartOptions options, String state, String verifier, long expiresAt) {
        this.id = id;
        this.login = login;
        this.type = type;
        this.options = options;
        this.state = state;
        this.verifier = verifier;
        this.expiresAt = expiresAt;
    }

    Status status() {
        return status;
    }

    long endedAt() {
        return endedAt;
    }

    /**
     * Ends the flow; only a pending flow ends, and only once.
     *
     * @return false when it had already ended
     */
    boolean end(Status to, long now, String connection, String why) {
        if (to == Status.PENDING || status != Status.PENDING) {
            return false;
        }
        this.connectionId = connection;
        this.error = why;
        this.endedAt = now;
        this.status = to;
        return true;
    }

    FlowView view() {
        return new FlowView(id, login.provider(), type, status.wireName(), authorizeUrl, userCode, verificationUri, expiresAt,
                connectionId, error);
    }
}
