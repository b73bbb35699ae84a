package dev.sluice.runtime.combo.strategy;

import java.util.Map;

/**
 * Who answers one part of a {@code pipeline} or {@code fusion} combo (issue 34): one of the
 * combo's targets by its position ({@code {"target": 0}}), or a model named outright
 * ({@code {"model": "glm/glm-4.6"}}).
 *
 * @param target the target's index in the combo's list (0-based), or null
 * @param model the model ({@code provider/model}), or null
 */
public record FlowMember(Integer target, String model) {

    /** Exactly one of the two. */
    public FlowMember {
        if ((target == null) == (model == null)) {
            throw new IllegalArgumentException("a member names either a target or a model");
        }
    }

    /**
     * Reads a member.
     *
     * @param value the option's value
     * @param at the option's path, for the message
     * @param targets how many targets the combo has, or -1 when unknown
     * @param extra the other keys the object may carry
     * @return the member
     * @throws IllegalArgumentException naming the option
     */
    static FlowMember read(Object value, String at, int targets, java.util.Set<String> extra) {
        if (!(value instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException(at + " must be an object {\"target\": index} or {\"model\": \"provider/model\"}");
        }
        for (Object key : m.keySet()) {
            if (!"target".equals(key) && !"model".equals(key) && !extra.contains(String.valueOf(key))) {
                throw new IllegalArgumentException(at + "." + key + " is not a known field (known: target, model"
                        + (extra.isEmpty() ? "" : ", " + String.join(", ", new java.util.TreeSet<>(extra))) + ")");
            }
        }
        Object t = m.get("target");
        Object model = m.get("model");
        if ((t == null) == (model == null)) {
            throw new IllegalArgumentException(at + " must name either a target (its index) or a model, not both or neither");
        }
        if (t != null) {
            if (!(t instanceof Integer || t instanceof Long) || ((Number) t).longValue() < 0
                    || (targets >= 0 && ((Number) t).longValue() >= targets)) {
                throw new IllegalArgumentException(at + ".target must be the index of one of the combo's targets (0 to "
                        + (targets > 0 ? targets - 1 : "n - 1") + ")");
            }
            return new FlowMember(((Number) t).intValue(), null);
        }
        if (!(model instanceof String s) || s.isBlank() || s.length() > 256) {
            throw new IllegalArgumentException(at + ".model must be a non-empty model name (provider/model)");
        }
        return new FlowMember(null, s.strip());
    }
}
