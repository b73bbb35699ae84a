package dev.sluice.runtime.combo;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * A combo (SPEC CO-1): a name clients use as {@code model}, a strategy, and targets.
 *
 * @param name the name (letters, digits, {@code .}, {@code _}, {@code :}, {@code -}; no {@code /})
 * @param strategy the strategy's name
 * @param strategyOptions the strategy's options, plain JSON values
 * @param targets the targets, in list order (never empty)
 * @param createdAt epoch ms
 * @param updatedAt epoch ms
 */
public record Combo(String name, String strategy, Map<String, Object> strategyOptions, List<ComboTarget> targets, long createdAt,
        long updatedAt) {

    /** Validates and copies. */
    public Combo {
        requireNonNull(name, "name is null");
        requireNonNull(strategy, "strategy is null");
        strategyOptions = strategyOptions == null ? Map.of() : Map.copyOf(strategyOptions);
        targets = List.copyOf(targets);
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("combo " + name + " has no target");
        }
    }
}
