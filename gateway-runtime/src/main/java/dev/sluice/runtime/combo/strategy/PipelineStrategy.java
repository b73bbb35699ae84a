package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code pipeline} (issue 34): not an ordering but steps run in turn by the router's executor
 * ({@code combo.flow.Pipeline}), each step's answer the next one's input. As a strategy it orders
 * the targets by priority — the order a failing step's fallbacks follow — and shows each
 * target's steps in explain.
 */
public final class PipelineStrategy implements ComboStrategy, TargetBoundOptions {

    /** The strategy's name. */
    public static final String NAME = "pipeline";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void checkOptions(Map<String, Object> options) {
        PipelineSteps.from(options, -1);
    }

    @Override
    public void checkOptions(Map<String, Object> options, int targets) {
        PipelineSteps.from(options, targets);
    }

    @Override
    public List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible) {
        return Orders.sorted(eligible, Orders.PRIORITY);
    }

    @Override
    public Map<Integer, Map<String, Object>> figures(ComboContext context, List<ComboTargetView> eligible) {
        List<PipelineSteps.Step> steps = PipelineSteps.from(context.options(), -1).steps();
        Map<Integer, Map<String, Object>> out = new LinkedHashMap<>();
        for (ComboTargetView v : eligible) {
            List<Integer> mine = new java.util.ArrayList<>();
            for (int i = 0; i < steps.size(); i++) {
                if (Integer.valueOf(v.index()).equals(steps.get(i).member().target())) {
                    mine.add(i);
                }
            }
            out.put(v.index(), Map.of("steps", mine));
        }
        return out;
    }
}
