package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.combo.strategy.ContextRelayStrategy;
import dev.sluice.runtime.combo.strategy.FusionStrategy;
import dev.sluice.runtime.combo.strategy.PipelineStrategy;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Walk;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The combos as the pipeline's entry point sees them (issue 34): which combo a model names, and
 * running it down the request's {@link Walk}. A combo whose strategy is an
 * executor ({@code context-relay}, {@code pipeline}, {@code fusion}) runs through it, every other
 * combo straight through the {@link ComboRouter}. A request whose body only passthrough can carry
 * (nothing to rewrite) goes to a {@code pipeline} or {@code fusion} combo's executor as well, and
 * is refused there as untranslatable; a {@code context-relay} combo serves it unsummarised.
 */
public final class ComboFlows {

    private final ComboRouter router;
    private final ContextRelay relay;
    private final Pipeline pipeline;
    private final Fusion fusion;

    /**
     * Creates the executors.
     *
     * @param router the combo router every call goes through
     * @param facts the model catalog (context windows, for the relay)
     * @param usage counts the answers the executors read themselves
     * @param clock the clock
     */
    public ComboFlows(ComboRouter router, ComboRouter.ModelFactsLookup facts, StepUsage usage, InstantSource clock) {
        this.router = router;
        this.relay = new ContextRelay(router, facts, usage, clock);
        this.pipeline = new Pipeline(router, usage, clock);
        this.fusion = new Fusion(router, usage, clock);
    }

    /**
     * The combo a model names, stored or automatic.
     *
     * @param model the model the client named (after its alias)
     * @param caller the caller
     * @return the combo, or empty when the model names none
     */
    public Optional<Combo> find(String model, Caller caller) {
        return router.combo(model, caller);
    }

    /**
     * Runs a request through a combo: its targets, in its strategy's order, each down the
     * request's walk; an executor strategy's own requests go down the same walk, a summary to
     * {@code reroute}.
     *
     * @param combo the combo
     * @param caller the caller
     * @param walk the request's walk
     * @param reroute routes a request of an executor's own as a client's
     * @return the outcome; an unserved one carries the combo's trail
     */
    public Outcome run(Combo combo, Caller caller, Walk walk, Reroute reroute) {
        ChatRequest request = walk.canonical();
        SubRequests sub = walk.rewritable() ? new SubRequests(walk, reroute) : null;
        String model = combo.name();
        return switch (combo.strategy()) {
            case ContextRelayStrategy.NAME -> relay.run(combo, caller, request, walk::dispatch, sub);
            case PipelineStrategy.NAME, FusionStrategy.NAME -> {
                if (request == null || sub == null) {
                    // nothing to rewrite: an embeddings call, or a body only passthrough carries
                    yield new Outcome.Unroutable(model, Outcome.Unroutable.Why.UNTRANSLATABLE, "combo " + combo.name() + "'s "
                            + combo.strategy() + " strategy rewrites the request, which this body cannot be");
                }
                yield combo.strategy().equals(PipelineStrategy.NAME) ? pipeline.run(combo, caller, request, sub)
                        : fusion.run(combo, caller, request, sub);
            }
            default -> router.run(combo, caller, ComboRouter.facts(request), walk::dispatch);
        };
    }
}
