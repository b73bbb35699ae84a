package dev.sluice.runtime.combo.routing;

import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.routing.ConnectionSelector;
import java.util.List;
import java.util.Map;

/**
 * What a combo would do with a request now (issue 34, {@code POST /api/combos/{name}/explain}).
 *
 * @param combo the combo
 * @param strategyFound whether its strategy is known (else the list order serves)
 * @param at when, epoch ms
 * @param order the eligible targets in the order they would be tried, with the figures the strategy read
 * @param startsOn per target index, the connection it would start on
 * @param heldBack the connections held back now, and why
 */
public record ComboExplanation(Combo combo, boolean strategyFound, long at, List<ComboTargetView> order, Map<Integer, String> startsOn,
        List<ConnectionSelector.Excluded> heldBack) {
}
