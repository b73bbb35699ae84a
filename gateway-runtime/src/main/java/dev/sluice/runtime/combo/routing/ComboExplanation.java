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
 * @param strategyFigures per target index, the figures the strategy reports (scores, windows, …)
 * @param notTried the eligible targets the strategy holds back for this request
 * @param notTriedReasons per target index of {@code notTried}, the strategy's reason
 * @param estimatedInputTokens the request's estimated input tokens, or null when unknown
 * @param maxOutputTokens the request's {@code max_tokens}, or null
 */
public record ComboExplanation(Combo combo, boolean strategyFound, long at, List<ComboTargetView> order, Map<Integer, String> startsOn,
        List<ConnectionSelector.Excluded> heldBack, Map<Integer, Map<String, Object>> strategyFigures, List<ComboTargetView> notTried,
        Map<Integer, String> notTriedReasons, Long estimatedInputTokens, Integer maxOutputTokens) {
}
