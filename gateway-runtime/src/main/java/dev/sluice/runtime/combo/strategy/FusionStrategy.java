package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code fusion} (issue 34): not an ordering but a panel asked in parallel and a judge that writes
 * the answer from theirs, run by the router's executor ({@code combo.flow.Fusion}). As a strategy
 * it orders the targets by priority and shows each target's role in explain.
 */
public final class FusionStrategy implements ComboStrategy, TargetBoundOptions {

    /** The strategy's name. */
    public static final String NAME = "fusion";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void checkOptions(Map<String, Object> options) {
        FusionPanel.from(options, -1);
    }

    @Override
    public void checkOptions(Map<String, Object> options, int targets) {
        FusionPanel.from(options, targets);
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, Orders.PRIORITY);
    }

    @Override
    public Map<Integer, Map<String, Object>> figures(ComboContext context, List<ComboTargetView> eligible) {
        int targets = eligible.stream().mapToInt(ComboTargetView::index).max().orElse(-1) + 1;
        FusionPanel p = FusionPanel.from(context.options(), context.options().containsKey(FusionPanel.PANEL) ? -1 : targets);
        Map<Integer, Map<String, Object>> out = new LinkedHashMap<>();
        for (ComboTargetView v : eligible) {
            Integer i = v.index();
            out.put(v.index(), Map.of("panel", p.panel().stream().anyMatch(m -> i.equals(m.target())), "judge", i.equals(p.judge().target())));
        }
        return out;
    }
}
