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

    /**
     * Whether a model name can denote a combo at all: a stored combo's name has no {@code /}, and
     * the only virtual ones that do are {@code auto/…} (issue 34). A {@code provider/model} name
     * is therefore routed without asking the combos (issue 35: its walk does not enter them).
     *
     * @param model the model a request names (after its alias)
     * @return false when it can only be a provider's model
     */
    public static boolean mayName(String model) {
        return storedMayName(model) || (model != null && model.startsWith("auto/"));
    }

    /**
     * Whether a model name can denote a stored combo: a stored combo's name has no {@code /}.
     *
     * @param model the model a request names
     * @return false for null and for any {@code provider/model} name
     */
    public static boolean storedMayName(String model) {
        return model != null && model.indexOf('/') < 0;
    }
}
