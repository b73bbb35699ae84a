package dev.sluice.runtime.routing;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceEngine;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which connections may serve a model, in the order to try them (SPEC DM-1): enabled, allowed for
 * the caller's key, lower {@code priority} first, ties by creation order — and not held back by
 * a resilience mechanism (terminal state, connection cooldown, window gate, model lockout, open
 * breaker), which is recorded per connection so that an all-held-back request can say why (CO-5).
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
    private volatile Pools pools = new Pools(List.of());

    /**
     * Creates the selector.
     *
     * @param store the connections
     * @param clock the clock (timers are lazy: a past expiry simply no longer counts)
     * @param engine the resilience engine
     */
    public ConnectionSelector(ConnectionStore store, InstantSource clock, ResilienceEngine engine) {
        this.store = store;
        this.clock = clock;
        this.engine = engine;
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
        return new Cursor(entries, route, caller, cls, engine.familyOf(provider, route.upstreamModel()),
                engine.providerExclusion(provider, cls));
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
        for (int i = 0; i < out.length; i++) {
            Connection c = mine.get(i);
            out[i] = new Entry(c, breakerKey(provider, c.baseUrl() != null ? c.baseUrl() : defaultBase));
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

    /** One request's walk over its candidates. Not thread-safe: one request, one thread. */
    public final class Cursor {
        private final Entry[] entries;
        private final Route route;
        private final Caller caller;
        private final ProviderClass providerClass;
        private final String family;
        private final Exclusion providerHold;
        private final List<Excluded> excluded = new ArrayList<>(2);
        private int next;
        private int eligible;

        private Cursor(Entry[] entries, Route route, Caller caller, ProviderClass providerClass, String family, Exclusion providerHold) {
            this.entries = entries;
            this.route = route;
            this.caller = caller;
            this.providerClass = providerClass;
            this.family = family;
            this.providerHold = providerHold;
        }

        /**
         * The next candidate that may serve, recording every held-back one on the way.
         *
         * @return the candidate, or null when none is left
         */
        public Candidate next() {
            long now = clock.millis();
            while (next < entries.length) {
                Entry e = entries[next++];
                Connection c = e.connection();
                if (!c.enabled() || !caller.mayUse(c.id())) {
                    continue;
                }
                eligible++;
                Candidate candidate = new Candidate(route.provider().id(), providerClass, c, e.breakerKey(), route.upstreamModel(), family);
                Exclusion why = providerHold != null ? providerHold : engine.exclusion(candidate, now);
                if (why != null) {
                    excluded.add(new Excluded(candidate, why));
                    continue;
                }
                return candidate;
            }
            return null;
        }

        /**
         * Records a candidate the breaker refused at attempt time (a half-open probe was already
         * in flight).
         *
         * @param c the candidate
         */
        public void refusedByBreaker(Candidate c) {
            excluded.add(new Excluded(c, new Exclusion(Exclusion.Reason.CIRCUIT_OPEN, engine.breakerRetryAfterMs(c))));
        }

        /** @return the connections held back so far, in walk order */
        public List<Excluded> excluded() {
            return List.copyOf(excluded);
        }

        /** @return enabled connections the caller may use, seen so far */
        public int eligible() {
            return eligible;
        }
    }
}
