package dev.sluice.runtime.combo.strategy;

import java.util.Map;

/**
 * A built-in strategy whose options name the combo's targets by position (issue 34:
 * {@code pipeline}'s steps, {@code fusion}'s panel and judge), so they are checked against the
 * combo's target list when it is created or replaced.
 */
public interface TargetBoundOptions {

    /**
     * Checks the options against the targets.
     *
     * @param options the strategy options
     * @param targets how many targets the combo has
     * @throws IllegalArgumentException naming the option
     */
    void checkOptions(Map<String, Object> options, int targets);
}
