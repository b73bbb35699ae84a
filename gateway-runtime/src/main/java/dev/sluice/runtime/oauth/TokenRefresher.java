package dev.sluice.runtime.oauth;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.runtime.oauth.TokenEndpoint.Issued;
import dev.sluice.runtime.oauth.TokenEndpoint.Refused;
import dev.sluice.runtime.oauth.TokenEndpoint.Reply;
import dev.sluice.runtime.oauth.TokenEndpoint.Unreachable;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.OAuthTokens;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Renews the access token of {@code oauth} connections whose provider has a login description
 * (issue 36), ahead of its expiry, before an attempt is sent. One refresh per connection at a
 * time: attempts that find the token due wait for the one refresh under way and use its result.
 * The rotated tokens are stored before they are used, so a crash between the two never leaves only
 * the dead refresh token. {@code invalid_grant} (revoked, already used) ends the connection in the
 * terminal {@code expired} status with the reason; a transient failure backs off
 * ({@link #BACKOFF_BASE_MS} doubling up to {@link #BACKOFF_MAX_MS}) and the attempt goes out with
 * the token it has.
 *
 * <p>Hot path: a connection that is not {@code oauth}, or whose token is not due, costs a field
 * test and a comparison; nothing is allocated.
 */
public final class TokenRefresher {

    /** How long before its expiry a token is renewed (as the Claude plugin's default). */
    public static final long DEFAULT_SKEW_MS = 60_000L;
    /** The first wait after a transient refresh failure. */
    public static final long BACKOFF_BASE_MS = 1_000L;
    /** The longest wait between failed refreshes. */
    public static final long BACKOFF_MAX_MS = 60_000L;

    private static final System.Logger LOG = System.getLogger(TokenRefresher.class.getName());

    private final Map<String, OAuthLogin> logins;
    private final TokenEndpoint endpoint;
    private final ConnectionStore store;
    private final InstantSource clock;
    private final Map<String, Long> skewMs;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    /** One connection's refresh lock and back-off. */
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        int failures;
        long notBefore;
    }

    /**
     * Creates the refresher.
     *
     * @param logins effective login descriptions by provider id
     * @param endpoint the authorization-server client
     * @param store where renewed tokens and the expired status are stored
     * @param clock the clock
     * @param skewMs how long before expiry a token is renewed, by provider id ({@link #DEFAULT_SKEW_MS} for others)
     */
    public TokenRefresher(Map<String, OAuthLogin> logins, TokenEndpoint endpoint, ConnectionStore store, InstantSource clock,
            Map<String, Long> skewMs) {
        this.logins = Map.copyOf(logins);
        this.endpoint = endpoint;
        this.store = store;
        this.clock = clock;
        this.skewMs = Map.copyOf(skewMs);
    }

    /**
     * The connection with tokens good to send: itself, or with renewed tokens when its token is due.
     *
     * @param c the connection an attempt is about to use
     * @return the connection to build the attempt from
     */
    public Connection fresh(Connection c) {
        if (c.authType() != ProviderClass.OAUTH || c.oauth() == null || !due(c.provider(), c.oauth())) {
            return c;
        }
        OAuthLogin login = logins.get(c.provider());
        if (login == null || c.oauth().refreshToken() == null) {
            return c;
        }
        Slot slot = slots.computeIfAbsent(c.id(), id -> new Slot());
        slot.lock.lock();
        try {
            // a refresh that finished while this attempt waited has already stored new tokens
            Connection current = store.find(c.id()).orElse(c);
            if (current.oauth() == null || !due(current.provider(), current.oauth()) || !"active".equals(current.state().testStatus())) {
                return current;
            }
            long now = clock.millis();
            if (now < slot.notBefore) {
                return current;
            }
            return refresh(login, current, slot, now);
        } finally {
            slot.lock.unlock();
        }
    }

    private boolean due(String provider, OAuthTokens t) {
        return t.expiresAt() != null && t.expiresAt() - skewMs.getOrDefault(provider, DEFAULT_SKEW_MS) <= clock.millis();
    }

    private Connection refresh(OAuthLogin login, Connection c, Slot slot, long now) {
        Map<String, String> grant = new LinkedHashMap<>();
        grant.put("grant_type", "refresh_token");
        grant.put("refresh_token", c.oauth().refreshToken());
        grant.put("client_id", login.clientId());
        if (login.clientSecret() != null) {
            grant.put("client_secret", login.clientSecret());
        }
        Reply reply = endpoint.post(login.tokenUrl(), login.tokenEncoding(), grant);
        if (reply instanceof Refused r && "invalid_grant".equals(r.error())) {
            String why = "OAuth refresh refused: " + r.reason() + "; log in again";
            LOG.log(Level.WARNING, "connection " + c.id() + ": " + why);
            return store.updateState(c.id(), new ConnectionState("expired", null, why, "expired", "invalid_grant", 0, 0)).orElse(c);
        }
        if (reply instanceof Issued(Map<String, Object> fields)) {
            OAuthAccount account;
            try {
                account = login.accountMapper().map(new OAuthTokenAnswer(fields, clock.millis()));
            } catch (RuntimeException e) {
                return backOff(c, slot, now, "the token answer was not usable: " + e.getMessage());
            }
            OAuthTokens renewed = new OAuthTokens(account.accessToken(),
                    account.refreshToken() != null ? account.refreshToken() : c.oauth().refreshToken(), account.expiresAt());
            // stored before it is used: the old refresh token may already be dead
            Connection stored = store.updateOAuth(c.id(), renewed).orElse(null);
            if (stored == null) {
                return c;
            }
            slot.failures = 0;
            slot.notBefore = 0;
            LOG.log(Level.INFO, "connection " + c.id() + ": OAuth access token renewed");
            return stored;
        }
        String why = reply instanceof Refused r ? r.reason() : ((Unreachable) reply).reason();
        return backOff(c, slot, now, why);
    }

    private Connection backOff(Connection c, Slot slot, long now, String why) {
        long wait = Math.min(BACKOFF_BASE_MS << Math.min(slot.failures, 20), BACKOFF_MAX_MS);
        slot.failures++;
        slot.notBefore = now + wait;
        LOG.log(Level.WARNING, "connection " + c.id() + ": OAuth token refresh failed (" + why + "); retrying in " + wait + " ms");
        return c;
    }
}
