package dev.sluice.runtime.combo.routing;

import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Which of a combo's targets may serve now (CO-1): resolved to a provider, its pinned connection
 * (if any) allowed for the caller, and a connection no resilience mechanism holds back. Claims
 * nothing.
 */
final class TargetScan {

    /**
     * A target that may serve now.
     *
     * @param index its position in the combo
     * @param route its route
     * @param caller the caller narrowed to its pinned connection
     * @param first the connection that would serve
     * @param held connections of the target held back before {@code first} was found (breaker,
     *     cooldowns, lockouts; issue 34: a health figure)
     */
    record Eligible(int index, Route route, Caller caller, Candidate first, int held) {
    }

    /**
     * The targets sorted into those that may serve now and the holds of the others.
     *
     * @param eligible the targets that may serve
     * @param excluded why each connection of the others is held back
     */
    record Result(List<Eligible> eligible, List<ConnectionSelector.Excluded> excluded) {
    }

    private final ModelResolver resolver;
    private final ConnectionSelector selector;

    TargetScan(ModelResolver resolver, ConnectionSelector selector) {
        this.resolver = resolver;
        this.selector = selector;
    }

    Result scan(Combo combo, Caller caller) {
        List<Eligible> eligible = new ArrayList<>();
        List<ConnectionSelector.Excluded> excluded = new ArrayList<>();
        for (int i = 0; i < combo.targets().size(); i++) {
            ComboTarget t = combo.targets().get(i);
            Optional<Route> route = resolver.resolve(t.model());
            Caller narrowed = narrow(caller, t.connectionId());
            if (route.isEmpty() || narrowed == null) {
                continue;
            }
            ConnectionSelector.Cursor cursor = selector.open(route.get(), narrowed);
            Candidate first = cursor.next();
            if (first == null) {
                excluded.addAll(cursor.excluded());
            } else {
                eligible.add(new Eligible(i, route.get(), narrowed, first, cursor.excluded().size()));
            }
        }
        return new Result(eligible, excluded);
    }

    /** The exclusions when no target is eligible now, or null when one is. */
    List<ConnectionSelector.Excluded> heldNow(Combo combo, Caller caller) {
        Result scan = scan(combo, caller);
        return scan.eligible().isEmpty() ? scan.excluded() : null;
    }

    /** The caller restricted to a pinned connection, or null when the caller may not use it. */
    private static Caller narrow(Caller caller, String connectionId) {
        if (connectionId == null) {
            return caller;
        }
        return caller.mayUse(connectionId) ? caller.pinnedTo(connectionId) : null;
    }
}
