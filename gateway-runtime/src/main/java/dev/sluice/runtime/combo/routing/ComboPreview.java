package dev.sluice.runtime.combo.routing;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.routing.Caller;
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
 * each would start on, the figures the strategy read and those it reports
 * ({@link ComboStrategy#figures}), the targets it holds back for this request and why, and why each
 * held-back connection is held back. Claims nothing, calls no upstream, changes no statistics.
 */
final class ComboPreview {

    /** The strategies' views of eligible targets. */
    @FunctionalInterface
    interface Views {
        List<ComboTargetView> of(Combo combo, List<TargetScan.Eligible> eligible, ComboStats stats);
    }

    private final TargetScan targets;
    private final Function<String, Optional<ComboStrategy>> strategies;
    private final Views views;
    private final InstantSource clock;

    ComboPreview(TargetScan targets, Function<String, Optional<ComboStrategy>> strategies, Views views, InstantSource clock) {
        this.targets = targets;
        this.strategies = strategies;
        this.views = views;
        this.clock = clock;
    }

    ComboExplanation explain(Combo combo, Caller caller, dev.sluice.api.combo.ComboRequest request, ComboStats stats) {
        long now = clock.millis();
        TargetScan.Result scan = targets.scan(combo, caller);
        Map<Integer, String> startsOn = new HashMap<>();
        for (TargetScan.Eligible e : scan.eligible()) {
            startsOn.put(e.index(), e.first().connection().id());
        }
        List<ComboTargetView> eligible = views.of(combo, scan.eligible(), stats);
        ComboStrategy strategy = strategies.apply(combo.strategy()).orElse(null);
        ComboContext ctx = new ComboContext(combo.name(), combo.strategyOptions(), ThreadLocalRandom.current(), now, request);
        StrategyHolds holds = StrategyHolds.of(strategy, ctx, eligible);
        List<ComboTargetView> kept = holds.kept();
        List<ComboTargetView> order = kept;
        Map<Integer, Map<String, Object>> figures = Map.of();
        if (strategy != null && !kept.isEmpty()) {
            List<ComboTargetView> given = preview(strategy, ctx, List.copyOf(kept));
            order = given != null && given.size() == kept.size() && new HashSet<>(given).equals(new HashSet<>(kept)) ? given : kept;
            try {
                Map<Integer, Map<String, Object>> f = strategy.figures(ctx, List.copyOf(kept));
                figures = f == null ? Map.of() : f;
            } catch (RuntimeException e) {
                figures = Map.of();
            }
        }
        List<ComboTargetView> heldViews = new ArrayList<>();
        for (ComboTargetView t : eligible) {
            if (holds.held().containsKey(t.index())) {
                heldViews.add(t);
            }
        }
        long input = request.estimatedInputTokens();
        return new ComboExplanation(combo, strategy != null, now, List.copyOf(order), Map.copyOf(startsOn), scan.excluded(), figures,
                List.copyOf(heldViews), holds.held(), input < 0 ? null : input, request.maxOutputTokens());
    }

    private static List<ComboTargetView> preview(ComboStrategy strategy, ComboContext ctx, List<ComboTargetView> eligible) {
        try {
            return strategy.preview(ctx, eligible);
        } catch (RuntimeException e) {
            return null; // as a request would: the list order serves
        }
    }
}
