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
     * Drops whatever per-combo state this strategy keeps for a combo that was deleted or whose
     * targets were replaced (a position, a shuffle bag). The default keeps nothing.
     *
     * @param comboName the combo's name
     */
    default void forget(String comboName) {
    }
}
