package dev.sluice.runtime.combo.routing;

import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import dev.sluice.runtime.routing.Route;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What strategies see of a combo's eligible targets (CO-2, issue 34): each combo's observations
 * ({@link ComboStats}) and, per target, the quota its serving connection announced (OF-4), the
 * model catalog's figures of its model and how many of its connections are held back.
 */
final class TargetViews {

    /** Above this many combos' stats, the virtual combos' are dropped (they start afresh). */
    static final int MAX_STATS = 1_024;

    private final ConcurrentHashMap<String, ComboStats> stats = new ConcurrentHashMap<>();
    private final QuotaObservations quotas;
    private final ComboRouter.ModelFactsLookup facts;
    private final InstantSource clock;

    TargetViews(QuotaObservations quotas, ComboRouter.ModelFactsLookup facts, InstantSource clock) {
        this.quotas = quotas;
        this.facts = facts;
        this.clock = clock;
    }

    /** The combo's stats, created (or renewed, when its targets changed) for a request. */
    ComboStats statsFor(Combo combo) {
        if (AutoCombos.isVirtual(combo) && stats.size() > MAX_STATS) {
            // virtual combos' stats are keyed by target list: a churn of lists must not grow the map without bound
            stats.keySet().removeIf(k -> k.indexOf('\n') >= 0);
        }
        // a request that read an older copy of the combo never resets the newer one's stats
        ComboStats st = stats.compute(key(combo), (k, old) -> old != null && (old.version > combo.updatedAt()
                || (old.version == combo.updatedAt() && old.size() == combo.targets().size()))
                ? old : new ComboStats(combo.updatedAt(), combo.targets().size()));
        return st.size() == combo.targets().size() ? st : new ComboStats(combo.updatedAt(), combo.targets().size());
    }

    /** The combo's stats as they are, for explain (nothing created). */
    ComboStats peek(Combo combo) {
        ComboStats st = stats.get(key(combo));
        return st == null || st.size() != combo.targets().size() ? new ComboStats(combo.updatedAt(), combo.targets().size()) : st;
    }

    void forget(String comboName) {
        stats.remove(comboName);
    }

    /** The views of the eligible targets. */
    List<ComboTargetView> of(Combo combo, List<TargetScan.Eligible> eligible, ComboStats st) {
        long now = clock.millis();
        List<ComboTargetView> out = new ArrayList<>(eligible.size());
        for (TargetScan.Eligible e : eligible) {
            Route r = e.route();
            out.add(st.view(e.index(), combo.targets().get(e.index()), quotas.of(e.first().connection().id()),
                    facts.of(r.provider().id(), r.upstreamModel()), e.held(), now));
        }
        return out;
    }

    /** Stats of a stored combo by its name; of a virtual one by its name and targets (they differ per caller). */
    private static String key(Combo combo) {
        return AutoCombos.isVirtual(combo) ? combo.name() + "\n" + combo.targets().hashCode() : combo.name();
    }
}
