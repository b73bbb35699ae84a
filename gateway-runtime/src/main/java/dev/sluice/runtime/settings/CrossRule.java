package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;

/**
 * A rule between two integer fields of one object, checked on the whole tree after every layer
 * and every PATCH has been merged (e.g. {@code maxCooldownMs ≥ baseCooldownMs}). The field named
 * first is the one that gives way: a PATCH that breaks the rule is refused naming it, and a
 * configured tree that breaks it has it clamped.
 *
 * @param object dotted path of the object inside its section ({@code ""} for the section itself)
 * @param field the field the rule bounds
 * @param other the field the bound is computed from
 * @param upper true when the bound is an upper bound, false for a lower bound
 * @param limit the bound as a function of {@code other}'s value
 * @param relation the rule for messages, e.g. {@code ≥ baseCooldownMs}
 */
record CrossRule(String object, String field, String other, boolean upper, LongUnaryOperator limit, String relation) {

    /**
     * {@code field ≥ other}.
     *
     * @param object the object's path inside its section
     * @param field the bounded field
     * @param other the field it may not fall below
     * @return the rule
     */
    static CrossRule atLeast(String object, String field, String other) {
        return new CrossRule(object, field, other, false, v -> v, "≥ " + other);
    }

    /**
     * {@code field ≤ other − 1}, but never below 1 (so {@code other = 1} leaves {@code field = 1}
     * legal: with a failure threshold of 1 the breaker opens on the first failure, and there is no
     * degraded step to configure).
     *
     * @param object the object's path inside its section
     * @param field the bounded field
     * @param other the field it must stay below
     * @return the rule
     */
    static CrossRule below(String object, String field, String other) {
        return new CrossRule(object, field, other, true, v -> Math.max(1, v - 1), "≤ " + other + " − 1");
    }

    /**
     * Checks a validated section.
     *
     * @param section the section's object
     * @param sectionPath the section's dotted path
     * @throws SettingsException naming the bounded field when the rule is broken
     */
    void check(ObjectNode section, String sectionPath) {
        ObjectNode o = target(section);
        long bound = limit.applyAsLong(o.get(other).longValue());
        long value = o.get(field).longValue();
        if (broken(value, bound)) {
            String path = path(sectionPath);
            throw new SettingsException(path, "'" + path + "' must be " + relation + " (" + bound + "), got " + value + ".");
        }
    }

    /**
     * Clamps the bounded field of a section read leniently, with one warning.
     *
     * @param section the section's object
     * @param sectionPath the section's dotted path
     * @param warn receives the warning
     */
    void clamp(ObjectNode section, String sectionPath, Consumer<String> warn) {
        ObjectNode o = target(section);
        long bound = limit.applyAsLong(o.get(other).longValue());
        long value = o.get(field).longValue();
        if (broken(value, bound)) {
            warn.accept("resilience setting " + path(sectionPath) + " = " + value + " must be " + relation + " (" + bound
                    + "); clamped to " + bound);
            o.set(field, Schema.integer(bound));
        }
    }

    /**
     * Whether a PATCH sets (or reverts) one of the rule's two fields.
     *
     * @param sectionPatch the PATCH's part for this rule's section (missing when it has none)
     * @return true when it names either field
     */
    boolean touchedBy(JsonNode sectionPatch) {
        JsonNode o = sectionPatch;
        if (!object.isEmpty()) {
            for (String part : object.split("\\.")) {
                o = o.path(part);
            }
        }
        return !o.path(field).isMissingNode() || !o.path(other).isMissingNode();
    }

    private boolean broken(long value, long bound) {
        return upper ? value > bound : value < bound;
    }

    private ObjectNode target(ObjectNode section) {
        JsonNode o = section;
        if (!object.isEmpty()) {
            for (String part : object.split("\\.")) {
                o = o.get(part);
            }
        }
        return (ObjectNode) o;
    }

    private String path(String sectionPath) {
        return sectionPath + "." + (object.isEmpty() ? "" : object + ".") + field;
    }
}
