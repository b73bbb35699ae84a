package dev.sluice.runtime.combo.flow;

import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.combo.strategy.FlowMember;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The combos an executor runs through the router (issue 34): one per step, panel member or judge,
 * named {@code <combo>#<role>} (so their observations are their own) and ordered
 * {@code fill-first}: the member's target first, then — for a step or a judge — the combo's other
 * targets by priority, its fallbacks. The combo's {@code maxAttempts} and {@code budgetMs} hold for
 * each.
 */
final class MemberCombos {

    static final String ORDER = "fill-first";

    private MemberCombos() {
    }

    /** The member alone: a panel member that fails is reported, not replaced. */
    static Combo alone(Combo combo, FlowMember member, String role) {
        return derived(combo, role, List.of(target(combo, member)));
    }

    /** The member, then the combo's other targets by priority: a step or a judge fails over like a target. */
    static Combo withFallbacks(Combo combo, FlowMember member, String role) {
        List<ComboTarget> targets = new ArrayList<>();
        targets.add(target(combo, member));
        List<Integer> others = new ArrayList<>();
        for (int i = 0; i < combo.targets().size(); i++) {
            if (member.target() == null || member.target() != i) {
                others.add(i);
            }
        }
        others.sort(Comparator.comparingInt((Integer i) -> priority(combo, i)).thenComparingInt(i -> i));
        others.forEach(i -> targets.add(combo.targets().get(i)));
        return derived(combo, role, targets);
    }

    /** A member's name in headers and logs: its model. */
    static String label(Combo combo, FlowMember member) {
        return target(combo, member).model();
    }

    private static ComboTarget target(Combo combo, FlowMember member) {
        if (member.target() != null) {
            if (member.target() >= combo.targets().size()) {
                throw new IllegalStateException("combo " + combo.name() + " names target " + member.target() + " of "
                        + combo.targets().size());
            }
            return combo.targets().get(member.target());
        }
        return new ComboTarget(member.model(), null, null, null, null);
    }

    private static int priority(Combo combo, int i) {
        Integer p = combo.targets().get(i).priority();
        return p == null ? i + 1 : p;
    }

    private static Combo derived(Combo combo, String role, List<ComboTarget> targets) {
        Map<String, Object> options = new HashMap<>();
        for (String key : List.of(dev.sluice.runtime.combo.routing.ComboRouter.MAX_ATTEMPTS, dev.sluice.runtime.combo.routing.ComboRouter.BUDGET_MS)) {
            Object v = combo.strategyOptions().get(key);
            if (v != null) {
                options.put(key, v);
            }
        }
        return new Combo(combo.name() + "#" + role, ORDER, options, targets, combo.createdAt(), combo.updatedAt());
    }
}
