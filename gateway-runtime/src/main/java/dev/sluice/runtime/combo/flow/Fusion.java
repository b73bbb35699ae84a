package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.combo.strategy.FlowMember;
import dev.sluice.runtime.combo.strategy.FusionPanel;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code fusion} (issue 34): the panel's members are asked at once, each on a virtual thread of
 * its own and each one combo request through the router (the member alone: a member that fails
 * is reported, not replaced); the judge — a combo request with the combo's other targets as its
 * fallbacks — then writes the answer from theirs, streamed when the client asked. While at least
 * one member answered, members' failures do not fail the request; they are named in
 * {@value #FAILED_HEADER} ({@code model (reason)}, comma-separated) and the members that answered
 * in {@value #ANSWERED_HEADER}. When none answered, the last member's failure is the answer and no
 * judge is asked.
 */
final class Fusion {

    /** The answer header naming the panel members that failed. */
    static final String FAILED_HEADER = "X-Sluice-Fusion-Failed";
    /** The answer header naming the panel members that answered. */
    static final String ANSWERED_HEADER = "X-Sluice-Fusion-Answered";

    private static final System.Logger LOG = System.getLogger(Fusion.class.getName());

    private final ComboRouter router;
    private final StepUsage usage;
    private final InstantSource clock;

    Fusion(ComboRouter router, StepUsage usage, InstantSource clock) {
        this.router = router;
        this.usage = usage;
        this.clock = clock;
    }

    Outcome run(Combo combo, Caller caller, ChatRequest request, SubRequests sub) {
        FusionPanel options = FusionPanel.from(combo.strategyOptions(), combo.targets().size());
        List<FlowMember> panel = options.panel();
        ChatRequest asked = Answers.whole(request);
        long startedAt = clock.millis();
        List<Future<Outcome>> asking = new ArrayList<>(panel.size());
        // at most MAX_PANEL threads; closing the executor waits for every member
        try (ExecutorService members = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < panel.size(); i++) {
                Combo member = MemberCombos.alone(combo, panel.get(i), "panel" + (i + 1));
                asking.add(members.submit(() -> router.run(member, caller, ComboRouter.facts(asked),
                        (route, narrowed) -> sub.dispatch(asked, route, narrowed))));
            }
        }
        List<String> answers = new ArrayList<>();
        List<String> answered = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        Outcome lastFailure = null;
        for (int i = 0; i < panel.size(); i++) {
            String label = MemberCombos.label(combo, panel.get(i));
            Outcome outcome;
            try {
                outcome = asking.get(i).get();
            } catch (ExecutionException e) {
                // an unexpected failure of one member costs only that member
                LOG.log(System.Logger.Level.WARNING, "combo " + combo.name() + ": panel member " + label + " failed: " + e.getCause());
                failed.add(label + " (error)");
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failed.add(label + " (interrupted)");
                continue;
            }
            if (outcome instanceof Outcome.Served served) {
                try (served) {
                    answers.add(Answers.text(served));
                    answered.add(label);
                    usage.count(caller, served, clock.millis() - startedAt);
                }
            } else {
                failed.add(label + " (" + Answers.reason(outcome) + ")");
                lastFailure = outcome;
            }
        }
        if (answers.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "combo " + combo.name() + ": no panel member answered: " + String.join(", ", failed));
            return lastFailure != null ? lastFailure : new Outcome.NoConnection(null, List.of(), null);
        }
        ChatRequest judged = Prompts.judge(request, answers);
        Outcome outcome = router.run(MemberCombos.withFallbacks(combo, options.judge(), "judge"), caller, ComboRouter.facts(judged),
                (route, narrowed) -> sub.dispatch(judged, route, narrowed));
        if (!(outcome instanceof Outcome.Served served)) {
            return outcome;
        }
        Outcome.Served out = served.withHeader(ANSWERED_HEADER, String.join(", ", answered));
        return failed.isEmpty() ? out : out.withHeader(FAILED_HEADER, String.join(", ", failed));
    }
}
