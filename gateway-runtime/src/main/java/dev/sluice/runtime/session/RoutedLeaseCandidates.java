package dev.sluice.runtime.session;

import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientLiveness;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Lease candidates by the routing rules themselves: the model resolved as a request's would be
 * (aliases included), its provider's connections walked as a request's would be — enabled,
 * allowed for the key, not held back by a resilience mechanism — with other owners' leases
 * recorded as busy rather than skipped silently.
 */
public final class RoutedLeaseCandidates implements LeaseCandidates {

    private final ModelResolver resolver;
    private final ConnectionSelector selector;
    private final UnaryOperator<String> aliases;

    /**
     * Creates the search.
     *
     * @param resolver model resolution
     * @param selector connection selection (with the leases)
     * @param aliases the operators' model aliases
     */
    public RoutedLeaseCandidates(ModelResolver resolver, ConnectionSelector selector, UnaryOperator<String> aliases) {
        this.resolver = resolver;
        this.selector = selector;
        this.aliases = aliases;
    }

    @Override
    public Pick pick(String model, String keyId, Set<String> allowedConnections, String ownerHash, String only) {
        Optional<Route> route = resolver.resolve(aliases.apply(model));
        if (route.isEmpty()) {
            return new NoneEligible(true, "The model '" + model + "' does not exist or no provider connection serves it.");
        }
        Caller caller = Caller.of(keyId, false, allowedConnections, ClientLiveness.ALWAYS)
                .withAffinity(new Caller.Affinity(null, ownerHash, 0));
        if (only != null) {
            if (!caller.mayUse(only)) {
                return new NoneEligible(false, "The leased connection is not allowed for this key.");
            }
            caller = caller.pinnedTo(only);
        }
        ConnectionSelector.Cursor cursor = selector.open(route.get(), caller);
        Candidate c = cursor.next();
        if (c != null) {
            return new Free(c.connection().id());
        }
        List<String> leased = new ArrayList<>();
        for (ConnectionSelector.Excluded e : cursor.excluded()) {
            if (e.exclusion().reason() == Exclusion.Reason.LEASED) {
                leased.add(e.candidate().connection().id());
            }
        }
        if (!leased.isEmpty()) {
            return new AllLeased(leased);
        }
        return new NoneEligible(false, cursor.eligible() == 0
                ? "No connection of '" + route.get().provider().id() + "' that this key may use is enabled."
                : "Every connection that could serve '" + model + "' is held back now (cooling down, locked or its breaker open).");
    }
}
