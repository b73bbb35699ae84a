package dev.sluice.runtime.combo.routing;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.resilience.QuotaObservations;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ConnectionSelector;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * What a combo would do with a request now, without doing it (issue 34,
 * {@code POST /api/combos/{name}/explain}): the eligible targets in the order its strategy gives
 * ({@link ComboStrategy#preview}, so no round-robin position or shuffle bag moves), the connection
 * each would start on, the figures the strategy read, and why each held-back connection is held
 * back. Claims nothing, calls no upstream, changes no statistics.
 */
final class ComboPreview {

    private final TargetScan targets;
    private final Function<String, Optional<ComboStrategy>> strategies;
    private final QuotaObservations quotas;
    private final InstantSource clock;

    ComboPreview(TargetScan targets, Function<String, Optional<ComboStrategy>> strategies, QuotaObservations quotas, InstantSource clock) {
        this.targets = targets;
        this.strategies = strategies;
        this.quotas = quotas;
        this.clock = clock;
    }

    ComboExplanation explain(Combo combo, Caller caller, dev.sluice.api.combo.ComboRequest request, ComboStats stats) {
        long now = clock.millis();
        TargetScan.Result scan = targets.scan(combo, caller);
        List<ComboTargetView> eligible = new ArrayList<>();
        Map<Integer, String> startsOn = new HashMap<>();
        for (TargetScan.Eligible e : scan.eligible()) {
            String connection = e.first().connection().id();
            startsOn.put(e.index(), connection);
            eligible.add(stats.view(e.index(), combo.targets().get(e.index()), quotas.of(connection)));
        }
        ComboStrategy strategy = strategies.apply(combo.strategy()).orElse(null);
        List<ComboTargetView> order = eligible;
        if (strategy != null && !eligible.isEmpty()) {
            List<ComboTargetView> given = preview(strategy, new ComboContext(combo.name(), combo.strategyOptions(),
                    ThreadLocalRandom.current(), now, request), List.copyOf(eligible));
            order = given != null && given.size() == eligible.size() && new HashSet<>(given).equals(new HashSet<>(eligible))
                    ? given : eligible;
        }
        return new ComboExplanation(combo, strategy != null, now, List.copyOf(order), Map.copyOf(startsOn), scan.excluded());
    }

    private static List<ComboTargetView> preview(ComboStrategy strategy, ComboContext ctx, List<ComboTargetView> eligible) {
        try {
            return strategy.preview(ctx, eligible);
        } catch (RuntimeException e) {
            return null; // as a request would: the list order serves
        }
    }
}
