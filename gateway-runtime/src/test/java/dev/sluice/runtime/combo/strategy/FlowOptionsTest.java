package dev.sluice.runtime.combo.strategy;

import static dev.sluice.runtime.combo.strategy.Views.indices;
import static dev.sluice.runtime.combo.strategy.Views.list;
import static dev.sluice.runtime.combo.strategy.Views.t;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.combo.ComboContext;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The options of {@code context-relay}, {@code pipeline} and {@code fusion} and their orderings (issue 34). */
class FlowOptionsTest {

    private static Map<String, Object> step(Object target, String model, String instruction) {
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        if (target != null) {
            m.put("target", target);
        }
        if (model != null) {
            m.put("model", model);
        }
        if (instruction != null) {
            m.put("instruction", instruction);
        }
        return m;
    }

    @Test
    void pipelineStepsNameATargetOrAModelAndAnInstruction_issue34() {
        PipelineSteps steps = PipelineSteps.from(Map.of("steps", List.of(step(1, null, "draft"), step(null, "glm/glm-4.6", "review"))), 2);
        assertThat(steps.steps()).containsExactly(new PipelineSteps.Step(new FlowMember(1, null), "draft"),
                new PipelineSteps.Step(new FlowMember(null, "glm/glm-4.6"), "review"));
        // a target index is checked once the targets are known
        assertThat(PipelineSteps.from(Map.of("steps", List.of(step(5, null, "x"))), -1).steps()).hasSize(1);
        assertThatThrownBy(() -> PipelineSteps.from(Map.of("steps", List.of(step(5, null, "x"))), 2))
                .hasMessageStartingWith("strategyOptions.steps[0].target must be the index of one of the combo's targets (0 to 1)");
    }

    @Test
    void badPipelineStepsAreRefusedNamingTheField_issue34() {
        assertThatThrownBy(() -> PipelineSteps.from(Map.of(), 1)).hasMessageStartingWith("strategyOptions.steps is required");
        List<Object> nine = java.util.Collections.nCopies(PipelineSteps.MAX_STEPS + 1, step(0, null, "x"));
        assertThatThrownBy(() -> PipelineSteps.from(Map.of("steps", nine), 1)).hasMessageStartingWith("strategyOptions.steps is required");
        assertThatThrownBy(() -> PipelineSteps.from(Map.of("steps", List.of(step(0, null, " "))), 1))
                .hasMessageStartingWith("strategyOptions.steps[0].instruction is required");
        assertThatThrownBy(() -> PipelineSteps.from(Map.of("steps", List.of(step(0, "a/b", "x"))), 1))
                .hasMessageStartingWith("strategyOptions.steps[0] must name either a target");
        assertThatThrownBy(() -> PipelineSteps.from(Map.of("steps", List.of(Map.of("target", 0, "instruction", "x", "temperature", 1))), 1))
                .hasMessageStartingWith("strategyOptions.steps[0].temperature is not a known field");
        assertThatThrownBy(() -> PipelineSteps.from(Map.of("steps", List.of(step(1.5, null, "x"))), 3))
                .hasMessageStartingWith("strategyOptions.steps[0].target must be the index");
        assertThatThrownBy(() -> PipelineSteps.from(Map.of("steps", List.of("draft")), 1))
                .hasMessageStartingWith("strategyOptions.steps[0] must be an object");
    }

    @Test
    void fusionsPanelIsEveryTargetByDefaultAndAtMostFive_issue34() {
        FusionPanel p = FusionPanel.from(Map.of("judge", Map.of("model", "claude/opus")), 3);
        assertThat(p.panel()).containsExactly(new FlowMember(0, null), new FlowMember(1, null), new FlowMember(2, null));
        assertThat(p.judge()).isEqualTo(new FlowMember(null, "claude/opus"));
        assertThatThrownBy(() -> FusionPanel.from(Map.of("judge", Map.of("target", 0)), 6))
                .hasMessageStartingWith("strategyOptions.panel is required when the combo has more than 5 targets");
        FusionPanel chosen = FusionPanel.from(Map.of("judge", Map.of("target", 0), "panel", List.of(Map.of("target", 5),
                Map.of("model", "glm/glm-4.6"))), 6);
        assertThat(chosen.panel()).containsExactly(new FlowMember(5, null), new FlowMember(null, "glm/glm-4.6"));
        assertThatThrownBy(() -> FusionPanel.from(Map.of("judge", Map.of("target", 0), "panel", java.util.Collections.nCopies(6,
                Map.of("target", 0))), 1)).hasMessageStartingWith("strategyOptions.panel must be an array of 1 to 5");
        assertThatThrownBy(() -> FusionPanel.from(Map.of(), 1)).hasMessageStartingWith("strategyOptions.judge is required");
        assertThatThrownBy(() -> FusionPanel.from(Map.of("judge", Map.of("target", 2)), 2))
                .hasMessageStartingWith("strategyOptions.judge.target must be the index");
    }

    @Test
    void relayOptionsHaveTheirDefaults_issue34() {
        RelayOptions o = RelayOptions.from(Map.of("summaryModel", " glm/glm-4.6 "));
        assertThat(o).isEqualTo(new RelayOptions(0.85, "glm/glm-4.6", 1));
        assertThat(RelayOptions.DEFAULT_THRESHOLD).isEqualTo(0.85);
        assertThat(RelayOptions.from(Map.of("summaryModel", "s", "relayThreshold", 1, "keepTurns", 3)))
                .isEqualTo(new RelayOptions(1.0, "s", 3));
        assertThatThrownBy(() -> RelayOptions.from(Map.of())).hasMessageStartingWith("strategyOptions.summaryModel is required");
        assertThatThrownBy(() -> RelayOptions.from(Map.of("summaryModel", "s", "relayThreshold", 0)))
                .hasMessageStartingWith("strategyOptions.relayThreshold must be a number above 0 and at most 1");
        assertThatThrownBy(() -> RelayOptions.from(Map.of("summaryModel", "s", "keepTurns", 101)))
                .hasMessageStartingWith("strategyOptions.keepTurns must be a whole number from 1 to 100");
    }

    @Test
    void theExecutorStrategiesOrderByPriorityAndAreRegisteredByName_issue34() {
        ComboContext ctx = new ComboContext("c", Map.of("summaryModel", "s"), RandomGenerator.of("L64X128MixRandom"), Views.NOW);
        var targets = list(t(0).priority(3), t(1).priority(1), t(2).priority(2));
        assertThat(indices(new ContextRelayStrategy().order(ctx, targets))).containsExactly(1, 2, 0);
        assertThat(indices(new PipelineStrategy().order(ctx, targets))).containsExactly(1, 2, 0);
        assertThat(indices(new FusionStrategy().order(ctx, targets))).containsExactly(1, 2, 0);
        assertThat(ComboStrategies.builtIn().names()).contains("context-relay", "pipeline", "fusion");
        ComboContext fusion = new ComboContext("c", Map.of("judge", Map.of("target", 1)), RandomGenerator.of("L64X128MixRandom"), Views.NOW);
        assertThat(new FusionStrategy().figures(fusion, targets).get(1)).isEqualTo(Map.of("panel", true, "judge", true));
        assertThat(new FusionStrategy().figures(fusion, targets).get(0)).isEqualTo(Map.of("panel", true, "judge", false));
        ComboContext pipe = new ComboContext("c", Map.of("steps", List.of(step(2, null, "a"), step(0, null, "b"), step(2, null, "c"))),
                RandomGenerator.of("L64X128MixRandom"), Views.NOW);
        assertThat(new PipelineStrategy().figures(pipe, targets).get(2)).isEqualTo(Map.of("steps", List.of(0, 2)));
    }
}
