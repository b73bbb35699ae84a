package dev.sluice.api.combo;

import java.util.List;

/**
 * How a combo orders its targets for one request (SPEC CO-2). The gateway hands a strategy only
 * the targets that are eligible right now (breaker, cooldowns, lockouts and terminal states have
 * already excluded the others); the strategy returns them in the order to try them: the first is
 * tried first, the rest are the fallbacks of that request. Built-in strategies and strategies
 * contributed by plugins ({@code ProviderPlugin.comboStrategies()}) implement it.
 *
 * <p>Implementations must be thread-safe: one instance serves every combo that names it, from
 * many requests at once; per-combo state (a position, a shuffle bag) is keyed by
 * {@link ComboContext#comboName()}. They must not block, and must return each given target
 * exactly once.
 */
@dev.sluice.api.Experimental("combo strategies are new; the view of a target may grow")
public interface ComboStrategy {

    /**
     * The strategy's name, as combos name it (e.g. {@code round-robin}): lower case letters,
     * digits and {@code -}.
     *
     * @return the name
     */
    String name();

    /**
     * Orders the eligible targets.
     *
     * @param context the request's context
     * @param eligible the eligible targets, in the combo's list order; never empty
     * @return the same targets, in the order to try them
     */
    List<ComboTargetView> order(ComboContext context, List<ComboTargetView> eligible);

    /**
     * The order {@link #order} would give now, for {@code POST /api/combos/{name}/explain}: the
     * same targets in the same order, but without advancing any per-combo state (a round-robin
     * position, a shuffle bag), since nothing is sent. The default calls {@link #order}, which is
     * right for strategies that keep no state; stateful strategies override it.
     *
     * @param context the request's context
     * @param eligible the eligible targets, in the combo's list order; never empty
     * @return the same targets, in the order {@link #order} would try them now
     */
    default List<ComboTargetView> preview(ComboContext context, List<ComboTargetView> eligible) {
        return order(context, eligible);
    }

    /**
     * Whether a target must not be tried for this request at all (issue 34), decided before
     * {@link #order}: {@code context-optimized} holds back targets whose context window cannot
     * hold the request. The router leaves held-back targets out of the order; when it holds back
     * every eligible target, the client's answer is a 400 — {@value #CONTEXT_LENGTH_EXCEEDED} when
     * that is every reason given, else {@code combo_targets_held_back} naming the reasons — and no
     * upstream is called. The default holds back nothing.
     *
     * @param context the request's context
     * @param target one eligible target
     * @return the reason (lower-case words joined by {@code _}), or null to let the target be tried
     */
    default String holdBack(ComboContext context, ComboTargetView target) {
        return null;
    }

    /** The {@link #holdBack} reason of a target whose context window cannot hold the request. */
    String CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded";

    /**
     * The figures this strategy based its order on, per target index, for
     * {@code POST /api/combos/{name}/explain} (scores and their parts, windows, …): plain JSON
     * values (numbers, strings, booleans, null, lists and maps of them). Called only to explain,
     * never on the request path. The default shows none.
     *
     * @param context the request's context
     * @param eligible the targets it orders (held-back ones excluded)
     * @return target index to figure name to value
     */
    default java.util.Map<Integer, java.util.Map<String, Object>> figures(ComboContext context, List<ComboTargetView> eligible) {
        return java.util.Map.of();
    }

    /**
     * Checks a combo's {@code strategyOptions} when the combo is created or replaced, so that a
     * bad option is refused with a 400 naming it instead of being ignored. The default accepts
     * every option.
     *
     * @param options the options (plain JSON values)
     * @throws IllegalArgumentException naming the option and what it must be
     */
    default void checkOptions(java.util.Map<String, Object> options) {
    }

    /**
     * Drops whatever per-combo state this strategy keeps for a combo that was deleted or whose
     * targets were replaced (a position, a shuffle bag). The default keeps nothing.
     *
     * @param comboName the combo's name
     */
    default void forget(String comboName) {
    }
}
