package dev.sluice.runtime.combo.strategy;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A {@code pipeline} combo's {@code strategyOptions.steps} (issue 34): one to {@value #MAX_STEPS}
 * steps, each a {@link FlowMember} with an {@code instruction}.
 *
 * @param steps the steps, in order
 */
public record PipelineSteps(List<Step> steps) {

    /** The option's name. */
    public static final String STEPS = "steps";
    /** The most steps one pipeline may have: each is an upstream call made in turn. */
    public static final int MAX_STEPS = 8;
    /** The longest instruction, characters. */
    public static final int MAX_INSTRUCTION = 8_000;

    /**
     * One step.
     *
     * @param member who answers it
     * @param instruction what the step does (the system message it gets)
     */
    public record Step(FlowMember member, String instruction) {
        /** Validates. */
        public Step {
            requireNonNull(member, "member is null");
            requireNonNull(instruction, "instruction is null");
        }
    }

    /** Copies. */
    public PipelineSteps {
        steps = List.copyOf(steps);
    }

    /**
     * Reads the steps.
     *
     * @param options the combo's strategy options
     * @param targets how many targets the combo has, or -1 when unknown
     * @return the steps
     * @throws IllegalArgumentException naming the option
     */
    public static PipelineSteps from(Map<String, Object> options, int targets) {
        Object v = options.get(STEPS);
        if (!(v instanceof List<?> list) || list.isEmpty() || list.size() > MAX_STEPS) {
            throw new IllegalArgumentException("strategyOptions.steps is required: an array of 1 to " + MAX_STEPS
                    + " steps, each {\"target\": index or \"model\": \"provider/model\", \"instruction\": \"...\"}");
        }
        List<Step> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            String at = "strategyOptions.steps[" + i + "]";
            FlowMember member = FlowMember.read(list.get(i), at, targets, Set.of("instruction"));
            Object instruction = ((Map<?, ?>) list.get(i)).get("instruction");
            if (!(instruction instanceof String s) || s.isBlank() || s.length() > MAX_INSTRUCTION) {
                throw new IllegalArgumentException(at + ".instruction is required: a non-empty string of at most " + MAX_INSTRUCTION
                        + " characters");
            }
            out.add(new Step(member, s));
        }
        return new PipelineSteps(out);
    }
}
