package dev.sluice.runtime.routing;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import java.time.InstantSource;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which connections may serve a model, in the order to try them (SPEC DM-1): enabled, allowed for
 * the caller's key, lower {@code priority} first, ties by creation order — and not held back by
 * a resilience mechanism (terminal state, connection cooldown, window gate, model lockout, open
 * breaker) or another owner's exclusive lease, which is recorded per connection so that an
 * all-held-back request can say why (CO-5). A request of a session (SPEC SA-1) tries first the
 * connection its session is pinned to, or — for a new session, or a pin that cannot serve — the
 * least recently used one of the best priority tier that can; then the usual order.
 *
 * <p>Selection is lazy: a request walks its provider's pre-sorted connection list only as far as
 * it needs, so choosing one connection among thousands costs a few field reads per skipped
 * connection (NF-3). The sorted lists are rebuilt when the store's snapshot changes.
 */
public final class ConnectionSelector {

    private static final Comparator<Connection> ORDER =
            Comparator.comparingInt(Connection::priority).thenComparingLong(Connection::seq);

    private final ConnectionStore store;
    private final InstantSource clock;
    private final ResilienceEngine engine;
    private final SessionRouting sessions;
    private volatile Pools pools = new Pools(List.of());

    /**
     * Creates the selector.
     *
     * @param store the connections
     * @param clock the clock (timers are lazy: a past expiry simply no longer counts)
     * @param engine the resilience engine
     * @param sessions session pins and leases (SPEC §10), or {@link SessionRouting#NONE}
     */
    public ConnectionSelector(ConnectionStore store, InstantSource clock, ResilienceEngine engine, SessionRouting sessions) {
        this.store = store;
        this.clock = clock;
        this.engine = engine;
        this.sessions = sessions;
    }

    /**
     * A connection as the store holds it now (memory: the store's snapshot), e.g. after the failure
     * path changed its state.
     *
     * @param connectionId the id
     * @return the connection, or empty when it was deleted
     */
    public Optional<Connection> current(String connectionId) {
        return store.find(connectionId);
    }

    /**
     * Opens a walk over the candidates of a route.
     *
     * @param route the resolved model
     * @param caller the caller
     * @return the cursor
     */
    public Cursor open(Route route, Caller caller) {
        List<Connection> snapshot = store.list();
        Pools p = pools;
        if (p.snapshot != snapshot) {
            p = new Pools(snapshot);
            pools = p;
        }
        String provider = route.provider().id();
        String base = route.provider().descriptor().defaultBaseUrl();
        Entry[] entries = p.byProvider.computeIfAbsent(provider, id -> build(snapshot, id, base));
        ProviderClass cls = route.provider().descriptor().defaultClass();
        String family = engine.familyOf(provider, route.upstreamModel());
        Cursor cursor = new Cursor(entries, route, caller, cls, family, engine.providerExclusion(provider, cls),
                engine.lockoutQuery(provider, route.upstreamModel(), family));
        cursor.seenSnapshot = snapshot;
        return cursor;
    }

    private static Entry[] build(List<Connection> snapshot, String provider, String defaultBase) {
        List<Connection> mine = new ArrayList<>();
        for (Connection c : snapshot) {
            if (c.provider().equals(provider)) {
                mine.add(c);
            }
        }
        mine.sort(ORDER);
        Entry[] out = new Entry[mine.size()];
        // one instance per host, so that a walk can ask each host's breaker once (identity check)
        Map<BreakerKey, BreakerKey> interned = new HashMap<>();
        for (int i = 0; i < out.length; i++) {
            Connection c = mine.get(i);
            BreakerKey key = breakerKey(provider, c.baseUrl() != null ? c.baseUrl() : defaultBase);
            out[i] = new Entry(c, interned.computeIfAbsent(key, k -> k));
        }
        return out;
    }

    /** BO-4: breakers are keyed by provider and the upstream host a connection calls. */
    static BreakerKey breakerKey(String provider, String baseUrl) {
        try {
            return BreakerKey.forBaseUrl(provider, baseUrl);
        } catch (IllegalArgumentException notAUrl) {
            // validated at write time; an odd stored value still gets a breaker of its own
            return new BreakerKey(provider, baseUrl.strip().toLowerCase(Locale.ROOT));
        }
    }

    private record Entry(Connection connection, BreakerKey breakerKey) {
    }

    /** The per-provider sorted lists of one store snapshot. */
    private static final class Pools {
        final List<Connection> snapshot;
        final Map<String, Entry[]> byProvider = new ConcurrentHashMap<>();

        Pools(List<Connection> snapshot) {
            this.snapshot = snapshot;
        }
    }

    /**
     * A connection held back, and by what.
     *
     * @param candidate the candidate
     * @param exclusion the mechanism and the time left
     */
    public record Excluded(Candidate candidate, Exclusion exclusion) {
    }

    /**
     * One request's walk over its candidates. Not thread-safe: one request, one thread. Held-back
     * connections are remembered as indexes and reasons; their records are built only when asked
     * for (the failure answer), so a walk that skips many connections allocates little (NF-3).
     */
    public final class Cursor {
        private static final Exclusion.Reason[] REASONS = Exclusion.Reason.values();

        private final Entry[] entries;
        private final Route route;
        private final Caller caller;
        private final ProviderClass providerClass;
        private final String family;
        private final Exclusion providerHold;
        private final ModelLockouts.Query lockouts;
        private final ResilienceEngine.Hold hold = new ResilienceEngine.Hold();
        private int[] heldIndex = new int[0];
        private byte[] heldReason = new byte[0];
        private long[] heldMs = new long[0];
        private FailureReason[] heldCause = new FailureReason[0];
        private int held;
        private int next;
        private int eligible;
        /** The session's connection, tried first (SA-1): its index, -1 for none, -2 before it was looked up. */
        private int preferred = -2;
        /** After an attempt: the connections' current state (a failure may have cooled siblings, EB-2). */
        private Map<String, Connection> current;
        private List<Connection> seenSnapshot;
        private boolean stale;
        /** Which connections may serve this request at all (null: every one); the others are passed over unseen. */
        private java.util.function.Predicate<Connection> serves;

        private Cursor(Entry[] entries, Route route, Caller caller, ProviderClass providerClass, String family, Exclusion providerHold,
                ModelLockouts.Query lockouts) {
            this.entries = entries;
            this.route = route;
            this.caller = caller;
            this.providerClass = providerClass;
            this.family = family;
            this.providerHold = providerHold;
            this.lockouts = lockouts;
        }

        /**
         * The next candidate that may serve, recording every held-back one on the way.
         *
         * @return the candidate, or null when none is left
         */
        public Candidate next() {
            long now = clock.millis();
            String provider = route.provider().id();
            if (preferred == -2) {
                preferred = preferred(provider, now);
                if (preferred >= 0) {
                    eligible++;
                    return candidate(preferred);
                }
            }
            while (next < entries.length) {
                int i = next++;
                if (i == preferred) {
                    continue;
                }
                Entry e = entries[i];
                Connection c = now(e.connection());
                if (!c.enabled() || !caller.mayUse(c.id())) {
                    continue;
                }
                if (serves != null && !serves.test(c)) {
                    continue;
                }
                eligible++;
                if (providerHold != null) {
                    remember(i, providerHold.reason(), providerHold.remainingMs(), null);
                    continue;
                }
                if (sessions.leasedByOther(c.id(), caller.affinity().leaseOwnerHash())) {
                    remember(i, Exclusion.Reason.LEASED, 0, null);
                    continue;
                }
                if (engine.held(provider, providerClass, c, e.breakerKey(), lockouts, now, hold)) {
                    remember(i, hold.reason(), hold.remainingMs(), hold.cause());
                    continue;
                }
                return candidate(i);
            }
            return null;
        }

        /**
         * SA-1, SA-2: the session's pinned connection when it can serve; else the least recently
         * used connection that can, among those of the best priority tier that has one; -1 when the
         * request has no session or nothing can serve.
         */
        private int preferred(String provider, long now) {
            String session = caller.affinity().sessionKey();
            if (session == null || providerHold != null) {
                return -1;
            }
            String pinned = sessions.pinned(session, provider);
            if (pinned != null) {
                for (int i = 0; i < entries.length; i++) {
                    if (entries[i].connection().id().equals(pinned)) {
                        if (canServe(i, provider, now)) {
                            return i;
                        }
                        break;
                    }
                }
            }
            int best = -1;
            long bestUsed = Long.MAX_VALUE;
            for (int i = 0; i < entries.length; i++) {
                if (best >= 0 && entries[i].connection().priority() != entries[best].connection().priority()) {
                    break;
                }
                if (canServe(i, provider, now)) {
                    long used = sessions.lastUsed(entries[i].connection().id());
                    if (used < bestUsed) {
                        best = i;
                        bestUsed = used;
                    }
                }
            }
            return best;
        }

        private boolean canServe(int i, String provider, long now) {
            Connection c = now(entries[i].connection());
            return c.enabled() && caller.mayUse(c.id()) && (serves == null || serves.test(c))
                    && !sessions.leasedByOther(c.id(), caller.affinity().leaseOwnerHash())
                    && !engine.held(provider, providerClass, c, entries[i].breakerKey(), lockouts, now, hold);
        }

        private Candidate candidate(int i) {
            Entry e = entries[i];
            return new Candidate(route.provider().id(), providerClass, now(e.connection()), e.breakerKey(), route.upstreamModel(), family);
        }

        /** The connection as the store has it now, once an attempt may have changed states. */
        private Connection now(Connection c) {
            if (stale) {
                stale = false;
                List<Connection> snapshot = store.list();
                if (snapshot == seenSnapshot) {
                    return current == null ? c : current.getOrDefault(c.id(), c);
                }
                seenSnapshot = snapshot;
                Map<String, Connection> byId = new HashMap<>(snapshot.size() * 2);
                for (Connection x : snapshot) {
                    byId.put(x.id(), x);
                }
                current = byId;
            }
            return current == null ? c : current.getOrDefault(c.id(), c);
        }

        private void remember(int index, Exclusion.Reason reason, long ms, FailureReason cause) {
            if (held == heldIndex.length) {
                int n = Math.max(4, held * 2);
                heldIndex = Arrays.copyOf(heldIndex, n);
                heldReason = Arrays.copyOf(heldReason, n);
                heldMs = Arrays.copyOf(heldMs, n);
                heldCause = Arrays.copyOf(heldCause, n);
            }
            heldIndex[held] = index;
            heldReason[held] = (byte) reason.ordinal();
            heldMs[held] = ms;
            heldCause[held] = cause;
            held++;
        }

        /**
         * Records a candidate the breaker refused at attempt time (a half-open probe was already
         * in flight).
         *
         * @param c the candidate
         */
        public void refusedByBreaker(Candidate c) {
            heldBack(c, new Exclusion(Exclusion.Reason.CIRCUIT_OPEN, engine.breakerRetryAfterMs(c), null));
            hold.forgetBreaker();
        }

        /**
         * A candidate this cursor returned turned out to be held back after all (it waited in its
         * connection's queue, and a mechanism took it meanwhile): it joins the excluded list.
         *
         * @param c the candidate
         * @param why what holds it back
         */
        public void heldBack(Candidate c, Exclusion why) {
            for (int i = Math.max(next - 1, preferred); i >= 0; i--) {
                if (entries[i].connection().id().equals(c.connection().id())) {
                    remember(i, why.reason(), why.remainingMs(), why.cause());
                    break;
                }
            }
        }

        /**
         * A candidate as its connection is now (after a wait, its state may have changed: cooled,
         * terminal, disabled, deleted).
         *
         * @param c a candidate this cursor returned
         * @return the candidate with its connection re-read, or null when the connection is gone,
         *     disabled or no longer allowed for the caller
         */
        public Candidate refreshed(Candidate c) {
            stale = true;
            Connection now = now(c.connection());
            if ((current != null && !current.containsKey(now.id())) || !now.enabled() || !caller.mayUse(now.id())) {
                return null;
            }
            return now == c.connection() ? c : new Candidate(c.provider(), c.providerClass(), now, c.breakerKey(), c.model(), c.family());
        }

        /**
         * An attempt ended: breakers and connection states may have changed (a failure may have
         * cooled siblings sharing an egress IP), so the rest of the walk reads them again.
         */
        public void attempted() {
            hold.forgetBreaker();
            stale = true;
        }

        /** @return the connections held back so far, in walk order */
        public List<Excluded> excluded() {
            List<Excluded> out = new ArrayList<>(held);
            for (int k = 0; k < held; k++) {
                out.add(new Excluded(candidate(heldIndex[k]), new Exclusion(REASONS[heldReason[k]], heldMs[k], heldCause[k])));
            }
            return out;
        }

        /** @return the time until the first timer among the held-back connections ends, or -1 when no timer holds any */
        public long soonestTimerMs() {
            long soonest = -1;
            for (int k = 0; k < held; k++) {
                if (REASONS[heldReason[k]].timer() && (soonest < 0 || heldMs[k] < soonest)) {
                    soonest = heldMs[k];
                }
            }
            return soonest;
        }

        /**
         * Narrows the walk, before its first step, to the connections that can serve this request
         * at all: the others are passed over as a connection the caller may not use is (issue 32:
         * a connection that would translate a body the canonical model cannot carry); they do not
         * count as {@linkplain #eligible() eligible}.
         *
         * @param which the connections that may serve
         */
        void only(java.util.function.Predicate<Connection> which) {
            serves = which;
        }

        /** @return enabled connections the caller may use, seen so far */
        public int eligible() {
            return eligible;
        }
    }
}
