package dev.sluice.runtime.combo.strategy;

import dev.sluice.api.combo.ComboRequest;
import dev.sluice.api.combo.ComboTargetView;

/**
 * Whether a request fits a target's context window (issue 34): the request's estimated input
 * tokens plus its {@code max_tokens} (0 when it sets none) against the catalog's context window.
 *
 * @param needed the tokens the request needs, or -1 when its input is unknown
 * @param window the target's window, or null when unknown
 */
record ContextFit(long needed, Long window) {

    /** The fit of a request to a target. */
    static ContextFit of(ComboRequest request, ComboTargetView target) {
        long input = request.estimatedInputTokens();
        Integer max = request.maxOutputTokens();
        long needed = input < 0 ? -1 : input + (max == null ? 0 : Math.max(0, max));
        return new ContextFit(needed, target.facts().contextWindow());
    }

    /** @return whether both figures are known */
    boolean known() {
        return needed >= 0 && window != null;
    }

    /** @return whether the request is known not to fit */
    boolean tooSmall() {
        return known() && needed > window;
    }

    /** @return the share of the window the request would use (0–1), or -1 when unknown */
    double used() {
        return known() ? Math.min(1, (double) needed / window) : -1;
    }
}
