package dev.sluice.runtime.oauth;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.runtime.oauth.TokenEndpoint.Issued;
import dev.sluice.runtime.oauth.TokenEndpoint.Refused;
import dev.sluice.runtime.oauth.TokenEndpoint.Reply;
import dev.sluice.runtime.oauth.TokenEndpoint.Unreachable;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.OAuthTokens;
import dev.sluice.runtime.upstream.EgressRoute;
import java.lang.System.Logger.Level;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Renews the access token of {@code oauth} connections whose provider has a login description
 * (issue 36): ahead of its expiry, before an attempt is sent, and after the upstream refused it
 * with {@code 401}. One refresh per connection at a time: attempts that need the same renewal wait
 * for the one under way and use its result; in shared mode one per cluster, under a
 * {@link RefreshLocks} lock, the other instances reading the result from the database. The grant
 * leaves through the connection's egress route ({@code localAddress}, {@code proxyUrl}).
 *
 * <p>The rotated tokens are stored before they are used, so a crash between the two never leaves
 * only the dead refresh token. {@code invalid_grant} (revoked, already used) ends the connection in
 * the terminal {@code expired} status with the reason; a transient failure backs off
 * ({@link #BACKOFF_BASE_MS} doubling up to {@link #BACKOFF_MAX_MS}) and the attempt goes out with
 * the token it has. A renewal the store could not keep is kept in memory and used, since the old
 * refresh token may already be dead.
 *
 * <p>Hot path: a connection that is not {@code oauth}, or whose token is not due, costs a field
 * test, a map lookup and a comparison; nothing is allocated.
 */
public final class TokenRefresher implements TokenRenewal {

    /** How long before its expiry a token is renewed (as the Claude plugin's default). */
    public static final long DEFAULT_SKEW_MS = 60_000L;
    /** The first wait after a transient refresh failure. */
    public static final long BACKOFF_BASE_MS = 1_000L;
    /** The longest wait between failed refreshes. */
    public static final long BACKOFF_MAX_MS = 60_000L;
    /** How long the cluster lock of a refresh holds at most (a holder that died frees it then). */
    public static final long LOCK_TTL_MS = 30_000L;
    /** How long an instance waits for another's refresh before the attempt goes out with what it has. */
    public static final long LOCK_WAIT_MS = 5_000L;
    /** How often a waiting instance reads the database for the other's result. */
    static final long LOCK_POLL_MS = 50L;

    private static final System.Logger LOG = System.getLogger(TokenRefresher.class.getName());

    /** Waits between polls; production sleeps the (virtual) request thread. */
    @FunctionalInterface
    public interface Pause {
        /**
         * Waits.
         *
         * @param ms how long
         * @throws InterruptedException when interrupted
         */
        void pause(long ms) throws InterruptedException;
    }

    private final Map<String, OAuthLogin> logins;
    private final TokenEndpoint endpoint;
    private final ConnectionStore store;
    private final InstantSource clock;
    private final Map<String, Long> skewMs;
    private final RefreshLocks locks;
    private final Pause pause;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    /**
     * A token a renewal replaced, and what replaced it.
     *
     * @param replaced the access token given up
     * @param renewed the tokens that replaced it
     */
    private record Renewal(String replaced, OAuthTokens renewed) {
    }

    /** One connection's refresh lock, back-off and last renewal. */
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        int failures;
        /** Written under {@link #lock}; read without it too, so that attempts during a back-off do not queue. */
        volatile long notBefore;
        /** Written under {@link #lock}; read without it. */
        volatile Renewal last;
    }

    private TokenRefresher(Builder b) {
        this.logins = Map.copyOf(b.logins);
        this.endpoint = b.endpoint;
        this.store = b.store;
        this.clock = b.clock;
        this.skewMs = Map.copyOf(b.skewMs);
        this.locks = b.locks;
        this.pause = b.pause;
    }

    /**
     * Starts a refresher with what every one needs; by default it is one instance's, with no cluster
     * lock (issue 35: one way to make one).
     *
     * @param logins effective login descriptions by provider id
     * @param endpoint the authorization-server client
     * @param store where renewed tokens and the expired status are stored
     * @param clock the clock
     * @param skewMs how long before expiry a token is renewed, by provider id ({@link #DEFAULT_SKEW_MS} for others)
     * @return the builder
     */
    public static Builder builder(Map<String, OAuthLogin> logins, TokenEndpoint endpoint, ConnectionStore store, InstantSource clock,
            Map<String, Long> skewMs) {
        return new Builder(logins, endpoint, store, clock, skewMs);
    }

    /** What a refresher is made of; the cluster lock defaults to none. */
    public static final class Builder {
        private final Map<String, OAuthLogin> logins;
        private final TokenEndpoint endpoint;
        private final ConnectionStore store;
        private final InstantSource clock;
        private final Map<String, Long> skewMs;
        private RefreshLocks locks = RefreshLocks.NONE;
        private Pause pause = Thread::sleep;

        private Builder(Map<String, OAuthLogin> logins, TokenEndpoint endpoint, ConnectionStore store, InstantSource clock,
                Map<String, Long> skewMs) {
            this.logins = logins;
            this.endpoint = endpoint;
            this.store = store;
            this.clock = clock;
            this.skewMs = skewMs;
        }

        /**
         * @param clusterLocks the cluster lock of a refresh; default {@link RefreshLocks#NONE} (one instance)
         * @param waits waits between reads while another instance refreshes; default {@code Thread::sleep}
         * @return this
         */
        public Builder locks(RefreshLocks clusterLocks, Pause waits) {
            this.locks = clusterLocks;
            this.pause = waits;
            return this;
        }

        /** @return the refresher */
        public TokenRefresher build() {
            return new TokenRefresher(this);
        }
    }

    /**
     * The connection with tokens good to send: itself, or with renewed tokens when its token is due.
     *
     * @param c the connection an attempt is about to use
     * @return the connection to build the attempt from
     */
    public Connection fresh(Connection c) {
        return beforeAttempt(c);
    }

    @Override
    public Connection beforeAttempt(Connection c) {
        if (c.authType() != ProviderClass.OAUTH || c.oauth() == null) {
            return c;
        }
        Connection current = withLastRenewal(c, slots.get(c.id()));
        if (!due(current.provider(), current.oauth())) {
            return current;
        }
        OAuthLogin login = logins.get(c.provider());
        if (login == null || current.oauth().refreshToken() == null) {
            return current;
        }
        return renew(login, current, t -> due(current.provider(), t));
    }

    @Override
    public Connection afterUnauthorized(Connection c) {
        if (c.authType() != ProviderClass.OAUTH || c.oauth() == null || c.oauth().refreshToken() == null) {
            return null;
        }
        OAuthLogin login = logins.get(c.provider());
        String refused = c.oauth().accessToken();
        if (login == null || refused == null) {
            return null;
        }
        Connection renewed = renew(login, c, t -> refused.equals(t.accessToken()));
        boolean other = renewed.oauth() != null && renewed.oauth().accessToken() != null
                && !refused.equals(renewed.oauth().accessToken()) && !ConnectionCooldowns.isTerminal(renewed.state().testStatus());
        return other ? renewed : null;
    }

    private boolean due(String provider, OAuthTokens t) {
        return t.accessToken() == null
                || t.expiresAt() != null && t.expiresAt() - skewMs.getOrDefault(provider, DEFAULT_SKEW_MS) <= clock.millis();
    }

    /** The connection with the tokens of this instance's last renewal, when it still carries the ones that renewal replaced. */
    private static Connection withLastRenewal(Connection c, Slot slot) {
        Renewal last = slot == null ? null : slot.last;
        if (last == null || c.oauth() == null || c.oauth().accessToken() == null || !c.oauth().accessToken().equals(last.replaced())) {
            return c;
        }
        return withTokens(c, last.renewed());
    }

    /**
     * Renews the tokens while {@code needed} holds for them: once per connection at a time here,
     * and once per cluster under the cluster lock.
     */
    private Connection renew(OAuthLogin login, Connection given, Predicate<OAuthTokens> needed) {
        Slot slot = slots.computeIfAbsent(given.id(), id -> new Slot());
        if (clock.millis() < slot.notBefore) {
            // backing off after a failure: the attempt goes with what it has, without waiting for the lock or reading the database
            return known(given, slot);
        }
        slot.lock.lock();
        try {
            Connection current = known(given, slot);
            if (settled(current, needed) || clock.millis() < slot.notBefore) {
                return current; // renewed by the refresh this attempt waited for, or that refresh failed
            }
            current = latest(given, slot);
            if (settled(current, needed)) {
                return current;
            }
            long polls = LOCK_WAIT_MS / LOCK_POLL_MS;
            for (long i = 0;; i++) {
                try (RefreshLocks.Claim claim = locks.claim(given.id(), LOCK_TTL_MS)) {
                    if (claim.outcome() == RefreshLocks.Outcome.HELD) {
                        // the instance that held the lock before may have renewed just now
                        current = latest(given, slot);
                        if (settled(current, needed)) {
                            return current;
                        }
                    }
                    if (claim.outcome() != RefreshLocks.Outcome.ELSEWHERE) {
                        return refresh(login, current, slot);
                    }
                }
                if (i >= polls || !pause()) {
                    LOG.log(Level.INFO, "connection " + given.id() + ": another instance's OAuth refresh did not finish within "
                            + LOCK_WAIT_MS + " ms; the attempt goes out with the token it has");
                    return current;
                }
                current = latest(given, slot);
                if (settled(current, needed)) {
                    return current;
                }
            }
        } finally {
            slot.lock.unlock();
        }
    }

    private boolean pause() {
        try {
            pause.pause(LOCK_POLL_MS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Whether there is nothing to renew: gone, no tokens, renewed meanwhile, or terminal. */
    private static boolean settled(Connection c, Predicate<OAuthTokens> needed) {
        return c.oauth() == null || c.oauth().refreshToken() == null || !needed.test(c.oauth())
                || ConnectionCooldowns.isTerminal(c.state().testStatus());
    }

    /** The connection as this instance's snapshot holds it, with this instance's renewal. */
    private Connection known(Connection given, Slot slot) {
        return withLastRenewal(store.find(given.id()).orElse(given), slot);
    }

    /** The connection as the database holds it now (another instance may have renewed it), with this instance's renewal. */
    private Connection latest(Connection given, Slot slot) {
        Connection stored;
        try {
            stored = store.reread(given.id()).orElse(given);
        } catch (RuntimeException e) {
            stored = given; // the database is unreachable: decide on what this instance knows
        }
        return withLastRenewal(stored, slot);
    }

    private Connection refresh(OAuthLogin login, Connection c, Slot slot) {
        long now = clock.millis();
        Map<String, String> grant = new LinkedHashMap<>();
        grant.put("grant_type", "refresh_token");
        grant.put("refresh_token", c.oauth().refreshToken());
        grant.put("client_id", login.clientId());
        if (login.clientSecret() != null) {
            grant.put("client_secret", login.clientSecret());
        }
        Reply reply = endpoint.post(EgressRoute.of(c.localAddress(), c.proxyUrl()), login.tokenUrl(), login.tokenEncoding(), grant);
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
            if (account.accessToken() == null || account.accessToken().isEmpty()) {
                return backOff(c, slot, now, "the token answer has no access_token");
            }
            OAuthTokens renewed = new OAuthTokens(account.accessToken(),
                    account.refreshToken() != null ? account.refreshToken() : c.oauth().refreshToken(), account.expiresAt());
            slot.failures = 0;
            slot.notBefore = 0;
            if (c.oauth().accessToken() != null) {
                slot.last = new Renewal(c.oauth().accessToken(), renewed);
            }
            // stored before it is used: the old refresh token may already be dead
            Connection stored;
            try {
                stored = store.updateOAuth(c.id(), renewed).orElse(null);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "connection " + c.id() + ": storing the renewed OAuth tokens failed (" + e.getClass().getSimpleName()
                        + "); this instance uses them from memory");
                return withTokens(c, renewed);
            }
            if (stored == null) {
                return c; // deleted meanwhile
            }
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

    private static Connection withTokens(Connection c, OAuthTokens t) {
        return new Connection(c.id(), c.seq(), c.provider(), c.name(), c.authType(), c.apiKey(), t, c.baseUrl(), c.priority(), c.enabled(),
                c.maxConcurrent(), c.rateLimitOverridesJson(), c.rateLimitProtection(), c.disableCooling(), c.providerSpecificDataJson(),
                c.localAddress(), c.proxyUrl(), c.state(), c.createdAt(), c.updatedAt());
    }
}
