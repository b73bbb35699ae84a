package dev.sluice.runtime.routing;

import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Which connections may serve a provider, in the order to try them (SPEC DM-1): enabled, allowed
 * for the caller's key, not in a terminal state and not cooling down; lower {@code priority}
 * first, ties by creation order.
 */
public final class ConnectionSelector {

    /** Terminal states (SPEC CC-6): never selected until an operator or new credentials reset them. */
    static final Set<String> TERMINAL = Set.of("banned", "expired", "credits_exhausted");

    private static final Comparator<Connection> ORDER =
            Comparator.comparingInt(Connection::priority).thenComparingLong(Connection::seq);

    private final ConnectionStore store;
    private final InstantSource clock;

    /**
     * Creates the selector.
     *
     * @param store the connections
     * @param clock the clock (cooldown expiry is lazy: a past {@code rateLimitedUntil} no longer counts)
     */
    public ConnectionSelector(ConnectionStore store, InstantSource clock) {
        this.store = store;
        this.clock = clock;
    }

    /**
     * The candidates for a provider.
     *
     * @param providerId the provider
     * @param caller the caller
     * @return candidates in order, and what was held back
     */
    public Selection select(String providerId, Caller caller) {
        long now = clock.millis();
        List<Connection> usable = new ArrayList<>(4);
        int eligible = 0;
        long soonest = Long.MAX_VALUE;
        for (Connection c : store.list()) {
            if (!c.provider().equals(providerId) || !c.enabled() || !caller.mayUse(c.id()) || TERMINAL.contains(c.state().testStatus())) {
                continue;
            }
            eligible++;
            Long until = c.state().rateLimitedUntil();
            if (until != null && until > now) {
                soonest = Math.min(soonest, until - now);
                continue;
            }
            usable.add(c);
        }
        usable.sort(ORDER);
        return new Selection(List.copyOf(usable), eligible, soonest == Long.MAX_VALUE ? 0 : soonest);
    }

    /**
     * The outcome of a selection.
     *
     * @param candidates connections to try, in order
     * @param eligible connections that would be candidates but for a resilience timer, plus the candidates
     * @param soonestRetryMs when candidates is empty but eligible is not: ms until the first cooldown ends
     */
    public record Selection(List<Connection> candidates, int eligible, long soonestRetryMs) {
    }
}
