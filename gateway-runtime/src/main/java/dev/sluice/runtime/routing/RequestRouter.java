package dev.sluice.runtime.routing;

import java.time.Duration;
import dev.sluice.runtime.stream.StreamRules;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The pipeline's one entry point: takes a parsed client request and its caller, decides how it is
 * served — through the combo its model names, by passthrough to an upstream that speaks the
 * client's dialect, or translated through the canonical model — and returns the one
 * {@link Outcome}. HTTP services parse, call {@link #route}, and render.
 */
public final class RequestRouter {

    private final ModelResolver resolver;
    private final Dispatcher dispatcher;
    private final ComboRouting combos;
    private final Duration attemptTimeout;
    private final Supplier<StreamRules> streamRules;
    private final UnaryOperator<String> aliases;
    private final dev.sluice.runtime.io.AnswerBuffers buffers;
    private final ToolLimits toolLimits = new ToolLimits();
    private final NativeDialects natives = new NativeDialects();

    /**
     * Creates the router.
     *
     * @param resolver resolves a model to a route
     * @param dispatcher the attempt loop of one route
     * @param combos routes requests whose model names a combo
     * @param attemptTimeout bound on connect + response headers of one attempt
     * @param streamRules the stream watchdogs' live settings ({@code streamRecovery}, §15)
     * @param aliases the operators' model aliases (API-1): a client's model → the model routed instead
     */
    public RequestRouter(ModelResolver resolver, Dispatcher dispatcher, ComboRouting combos, Duration attemptTimeout,
            Supplier<StreamRules> streamRules, UnaryOperator<String> aliases) {
        this(resolver, dispatcher, combos, attemptTimeout, streamRules, aliases, dev.sluice.runtime.io.AnswerBuffers.DEFAULTS);
    }

    /**
     * Creates the router.
     *
     * @param resolver resolves a model to a route
     * @param dispatcher the attempt loop of one route
     * @param combos routes requests whose model names a combo
     * @param attemptTimeout bound on connect + response headers of one attempt
     * @param streamRules the stream watchdogs' live settings ({@code streamRecovery}, §15)
     * @param aliases the operators' model aliases (API-1): a client's model → the model routed instead
     * @param buffers the shared answer budget large stream frames count against (issue 29)
     */
    public RequestRouter(ModelResolver resolver, Dispatcher dispatcher, ComboRouting combos, Duration attemptTimeout,
            Supplier<StreamRules> streamRules, UnaryOperator<String> aliases, dev.sluice.runtime.io.AnswerBuffers buffers) {
        this.buffers = buffers;
        this.aliases = aliases;
        this.resolver = resolver;
        this.dispatcher = dispatcher;
        this.combos = combos;
        this.attemptTimeout = attemptTimeout;
        this.streamRules = streamRules;
    }

    /**
     * Routes a request. A {@link Outcome.Served} outcome holds its admission: the caller closes it
     * once the answer is written.
     *
     * @param request the parsed request
     * @param caller the caller
     * @param requestId the request id
     * @return the outcome
     */
    public Outcome route(ClientRequest request, Caller caller, String requestId) {
        return route(request, caller, requestId, AttemptTally.NONE);
    }

    /**
     * Routes a request, counting each of its upstream attempts on {@code tally} as it is recorded
     * (issue 35 §4: the count travels with the request, not back through a lookup by its id).
     *
     * @param request the parsed request
     * @param caller the caller
     * @param requestId the request id
     * @param tally counts the request's attempts (the request's telemetry record)
     * @return the outcome; a {@link Outcome.Served} holds its admission until the caller closes it
     */
    public Outcome route(ClientRequest request, Caller caller, String requestId, AttemptTally tally) {
        StreamGate gate = new StreamGate(streamRules.get(), caller.client(), buffers);
        // API-1: an operator's alias names the model (or combo) routed instead
        String model = aliases.apply(request.model());
        // issue 33: a key limited to some models names one of them, or its alias does
        if (!caller.models().all() && !caller.models().allows(request.model()) && !caller.models().allows(model)) {
            return new Outcome.Unroutable(request.model(), Outcome.Unroutable.Why.MODEL_NOT_ALLOWED, null);
        }
        if (!(request instanceof ClientRequest.Embeddings)) {
            // CO-1: the combo's targets, in its strategy's order, each a whole provider walk
            Outcome viaCombo = combos.route(model, caller, canonical(request),
                    (route, narrowed) -> dispatch(request, route, narrowed, requestId, tally, gate), subRequests(request, requestId, tally, gate));
            if (viaCombo != null) {
                return viaCombo;
            }
        }
        Optional<Route> route = resolver.resolve(model);
        if (route.isEmpty()) {
            // SH-2: a refused plugin's provider answers why, instead of "no such model"
            resolver.refusal(model).ifPresent(e -> {
                throw e;
            });
            return new Outcome.Unroutable(request.model(), Outcome.Unroutable.Why.MODEL_NOT_FOUND, null);
        }
        if (request instanceof ClientRequest.Embeddings && !route.get().provider().executor().supportsEmbeddings()) {
            return new Outcome.Unroutable(request.model(), Outcome.Unroutable.Why.NO_EMBEDDINGS, route.get().provider().id());
        }
        return dispatch(request, route.get(), caller, requestId, tally, gate);
    }

    /** One route's walk, with the call the request makes of that route's executor. */
    private Outcome dispatch(ClientRequest request, Route route, Caller caller, String requestId, AttemptTally tally, StreamGate gate) {
        int tools = tools(request);
        int limit = toolLimits.limit(route);
        if (limit >= 0 && tools > limit) {
            // OF-2: this upstream refused as many tools before; a combo goes on to its next target
            return new Outcome.Unroutable(route.requested(), Outcome.Unroutable.Why.TOOL_LIMIT, route.provider().id() + "/"
                    + route.upstreamModel() + " takes at most " + limit + " tools");
        }
        AttemptCall call = call(request, route, requestId, gate);
        if (!(request instanceof ClientRequest.Embeddings)) {
            // an executor's own recovery comes before the generic failure path (e.g. a provider's slower lane)
            call = AttemptCall.recovering(call, caller.client(), attemptTimeout);
        }
        // issue 32: a body the canonical model cannot carry goes only where it is passed through as it is
        java.util.function.BiPredicate<Route, dev.sluice.api.UpstreamTarget> serves =
                request instanceof ClientRequest.Dialect d && d.untranslatable() != null ? AttemptCall.passesThrough(d.dialect(), natives) : null;
        // issue 32: a stream's readiness bound counts from the attempt's start, the wait for headers included
        long readinessMs = streamed(request) ? gate.rules().readinessTimeoutMs() : 0;
        Outcome outcome = dispatcher.dispatch(route, caller, requestId, tally, call, gate.rules().earlyEofRetries(), readinessMs, serves);
        toolLimits.learn(outcome, tools);
        return outcome;
    }

    /**
     * Issue 34: what a combo executor sends beside the client's request, through the same dispatch;
     * null when the client's body can only be passed through as it is (nothing to rewrite).
     */
    private ComboRouting.SubRequests subRequests(ClientRequest request, String requestId, AttemptTally tally, StreamGate gate) {
        java.util.Map<String, String> headers = switch (request) {
            case ClientRequest.Chat c -> c.clientHeaders();
            case ClientRequest.Dialect d -> d.untranslatable() != null ? null : d.clientHeaders();
            case ClientRequest.Embeddings e -> null;
        };
        if (headers == null) {
            return null;
        }
        return new ComboRouting.SubRequests() {
            @Override
            public Outcome dispatch(dev.sluice.api.chat.ChatRequest sub, Route route, Caller caller) {
                return RequestRouter.this.dispatch(new ClientRequest.Chat(sub, headers), route, caller, requestId, tally, gate);
            }

            @Override
            public Outcome route(dev.sluice.api.chat.ChatRequest sub, Caller caller) {
                return RequestRouter.this.route(new ClientRequest.Chat(sub, headers), caller, requestId, tally);
            }
        };
    }

    /** The request in canonical form, for the combo strategies that read it; null for embeddings. */
    private static dev.sluice.api.chat.ChatRequest canonical(ClientRequest request) {
        return switch (request) {
            case ClientRequest.Chat c -> c.request();
            case ClientRequest.Dialect d -> d.request();
            case ClientRequest.Embeddings e -> null;
        };
    }

    private static boolean streamed(ClientRequest request) {
        return switch (request) {
            case ClientRequest.Chat c -> c.request().stream();
            case ClientRequest.Dialect d -> d.request().stream();
            case ClientRequest.Embeddings e -> false;
        };
    }

    private static int tools(ClientRequest request) {
        return switch (request) {
            case ClientRequest.Chat c -> c.request().tools().size();
            case ClientRequest.Dialect d -> d.request().tools().size();
            case ClientRequest.Embeddings e -> 0;
        };
    }

    private AttemptCall call(ClientRequest request, Route route, String requestId, StreamGate gate) {
        return switch (request) {
            case ClientRequest.Chat c -> AttemptCall.chat(c.request(), requestId, attemptTimeout, c.clientHeaders(), gate);
            // SPEC API-3: passthrough when the target speaks the client's dialect, so nothing the canonical model cannot carry is lost
            case ClientRequest.Dialect d -> AttemptCall.dialect(d, requestId, attemptTimeout, gate, natives);
            case ClientRequest.Embeddings e -> AttemptCall.embeddings(e.request(), requestId, attemptTimeout);
        };
    }
}
