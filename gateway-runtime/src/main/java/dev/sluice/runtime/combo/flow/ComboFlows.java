package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.combo.strategy.ContextRelayStrategy;
import dev.sluice.runtime.combo.strategy.FusionStrategy;
import dev.sluice.runtime.combo.strategy.PipelineStrategy;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ComboRouting;
import dev.sluice.runtime.routing.Outcome;
import java.time.InstantSource;
import java.util.Optional;

/**
 * The combo routing the pipeline's entry point sees (issue 34): a combo whose strategy is an
 * executor ({@code context-relay}, {@code pipeline}, {@code fusion}) runs through it, every other
 * combo straight through the {@link ComboRouter}. A request whose body only passthrough can carry
 * (nothing to rewrite) goes to a {@code pipeline} or {@code fusion} combo's executor as well, and
 * is refused there as untranslatable; a {@code context-relay} combo serves it unsummarised.
 */
public final class ComboFlows implements ComboRouting {

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

    @Override
    public Outcome route(String model, Caller caller, TargetDispatch dispatch) {
        return route(model, caller, null, dispatch, null);
    }

    @Override
    public Outcome route(String model, Caller caller, ChatRequest request, TargetDispatch dispatch) {
        return route(model, caller, request, dispatch, null);
    }

    @Override
    public Outcome route(String model, Caller caller, ChatRequest request, TargetDispatch dispatch, SubRequests sub) {
        Optional<Combo> found = router.combo(model, caller);
        if (found.isEmpty()) {
            return null;
        }
        Combo combo = found.get();
        return switch (combo.strategy()) {
            case ContextRelayStrategy.NAME -> relay.run(combo, caller, request, dispatch, sub);
            case PipelineStrategy.NAME, FusionStrategy.NAME -> {
                if (request == null || sub == null) {
                    // nothing to rewrite: an embeddings call, or a body only passthrough carries
                    yield new Outcome.Unroutable(model, Outcome.Unroutable.Why.UNTRANSLATABLE, "combo " + combo.name() + "'s "
                            + combo.strategy() + " strategy rewrites the request, which this body cannot be");
                }
                yield combo.strategy().equals(PipelineStrategy.NAME) ? pipeline.run(combo, caller, request, sub)
                        : fusion.run(combo, caller, request, sub);
            }
            default -> router.run(combo, caller, ComboRouter.facts(request), dispatch);
        };
    }
}
