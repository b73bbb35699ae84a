package dev.sluice.runtime.routing;

import dev.sluice.runtime.io.AnswerBuffers;
import dev.sluice.runtime.stream.StreamRules;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Begins a request's {@link Walk}: what every walk of a route shares — the attempt loop, the
 * bound on one attempt's start, the stream watchdogs' live settings, the answer budget, and what
 * routing learnt of upstreams' tool limits — beside the one request it is for.
 */
public final class RouteWalks {

    private final Dispatcher dispatcher;
    private final Duration attemptTimeout;
    private final Supplier<StreamRules> streamRules;
    private final AnswerBuffers buffers;
    private final ToolLimits toolLimits = new ToolLimits();
    private final NativeDialects natives = new NativeDialects();

    /**
     * Creates the walks.
     *
     * @param dispatcher the attempt loop of one route
     * @param attemptTimeout bound on connect + response headers of one attempt
     * @param streamRules the stream watchdogs' live settings ({@code streamRecovery}, §15)
     * @param buffers the shared answer budget large stream frames count against (issue 29)
     */
    public RouteWalks(Dispatcher dispatcher, Duration attemptTimeout, Supplier<StreamRules> streamRules, AnswerBuffers buffers) {
        this.dispatcher = dispatcher;
        this.attemptTimeout = attemptTimeout;
        this.streamRules = streamRules;
        this.buffers = buffers;
    }

    /**
     * Begins one request's walk: its stream gate is made once, shared by every route the walk
     * takes (a combo's targets, a flow's steps).
     *
     * @param request the parsed request
     * @param caller the caller
     * @param requestId the request id
     * @param tally counts the request's attempts (the request's telemetry record)
     * @return the walk
     */
    public Walk begin(ClientRequest request, Caller caller, String requestId, AttemptTally tally) {
        return new Walk(this, request, requestId, tally, new StreamGate(streamRules.get(), caller.client(), buffers));
    }

    /** One route's walk, with the call the request makes of that route's executor. */
    Outcome dispatch(ClientRequest request, Route route, Caller caller, String requestId, AttemptTally tally, StreamGate gate) {
        int tools = tools(request);
        int limit = toolLimits.limit(route);
        if (limit >= 0 && tools > limit) {
            // OF-2: this upstream refused as many tools before; a combo goes on to its next target
            return new Outcome.Unroutable(route.requested(), Outcome.Unroutable.Why.TOOL_LIMIT, route.provider().id() + "/"
                    + route.upstreamModel() + " takes at most " + limit + " tools");
        }
        AttemptCall call = call(request, requestId, gate);
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

    private AttemptCall call(ClientRequest request, String requestId, StreamGate gate) {
        return switch (request) {
            case ClientRequest.Chat c -> AttemptCall.chat(c.request(), requestId, attemptTimeout, c.clientHeaders(), gate);
            // SPEC API-3: passthrough when the target speaks the client's dialect, so nothing the canonical model cannot carry is lost
            case ClientRequest.Dialect d -> AttemptCall.dialect(d, requestId, attemptTimeout, gate, natives);
            case ClientRequest.Embeddings e -> AttemptCall.embeddings(e.request(), requestId, attemptTimeout);
        };
    }
}
