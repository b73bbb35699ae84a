package dev.sluice.runtime.combo;

import static java.util.Objects.requireNonNull;

/**
 * One target of a combo (SPEC CO-1, AD-1).
 *
 * @param model the model, {@code provider/model} (or a bare model name a provider lists)
 * @param connectionId the connection the target is pinned to, or null for any of its provider's
 * @param weight the weight for weighted strategies, or null (1)
 * @param priority the priority for priority strategies (lower first), or null (list order)
 * @param costPer1kTokens the cost for cost-optimized routing, or null (unknown)
 */
public record ComboTarget(String model, String connectionId, Integer weight, Integer priority, Double costPer1kTokens) {

    /** Validates. */
    public ComboTarget {
        requireNonNull(model, "model is null");
    }
}
