package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.combo.strategy.PipelineSteps;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;
import java.time.InstantSource;
import java.util.List;

/**
 * {@code pipeline} (issue 34): the steps in order, each one combo request through the router
 * (its member first, the combo's other targets as its fallbacks), each step's answer fed to the
 * next. Earlier steps are asked for whole answers, which are read, counted and closed; the last
 * step is the client's answer (streamed when the client asked). A step that fails after its
 * fallbacks ends the request with that step's failure, as a combo's last failed target does.
 */
final class Pipeline {

    /** The answer header that says how many steps ran. */
    static final String STEPS_HEADER = "X-Sluice-Pipeline-Steps";

    private final ComboRouter router;
    private final StepUsage usage;
    private final InstantSource clock;

    Pipeline(ComboRouter router, StepUsage usage, InstantSource clock) {
        this.router = router;
        this.usage = usage;
        this.clock = clock;
    }

    Outcome run(Combo combo, Caller caller, ChatRequest request, SubRequests sub) {
        List<PipelineSteps.Step> steps = PipelineSteps.from(combo.strategyOptions(), combo.targets().size()).steps();
        String previous = null;
        for (int i = 0; i < steps.size(); i++) {
            boolean last = i == steps.size() - 1;
            PipelineSteps.Step step = steps.get(i);
            ChatRequest asked = Prompts.step(request, step.instruction(), previous, last);
            Combo stepCombo = MemberCombos.withFallbacks(combo, step.member(), "step" + (i + 1));
            long startedAt = clock.millis();
            Outcome outcome = router.run(stepCombo, caller, ComboRouter.facts(asked), (route, narrowed) -> sub.dispatch(asked, route, narrowed));
            if (!(outcome instanceof Outcome.Served served)) {
                return outcome;
            }
            if (last) {
                return served.withHeader(STEPS_HEADER, String.valueOf(steps.size()));
            }
            try (served) {
                previous = Answers.text(served);
                usage.count(caller, served, clock.millis() - startedAt);
            }
        }
        throw new IllegalStateException("a pipeline without steps");
    }
}
