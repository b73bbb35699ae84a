package dev.sluice.runtime.routing;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.EmbeddingCall;
import dev.sluice.api.EmbeddingOutcome;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.EmbeddingRequest;
import java.time.Duration;
import java.util.Map;

/**
 * What one attempt sends to a target: the executor call of a request kind (chat, passthrough,
 * embeddings), made for the route being tried (a combo's targets have routes of their own).
 */
@FunctionalInterface
interface AttemptCall {

    /**
     * Sends the attempt.
     *
     * @param route the route being tried
     * @param target the connection, with the client of its egress route
     * @return what the attempt produced
     */
    Attempt send(Route route, UpstreamTarget target);

    /**
     * A chat request through the canonical model; a stream is read ahead through its readiness
     * gate (SPEC ST-0) to its first useful event.
     */
    static AttemptCall chat(ChatRequest request, String requestId, Duration timeout, Map<String, String> clientHeaders,
            StreamGate gate) {
        return (route, target) -> {
            long started = System.nanoTime();
            return switch (route.provider().executor().chat(
                    new ChatCall(request.withModel(route.upstreamModel()), target, requestId, timeout, clientHeaders))) {
                case ChatOutcome.Completed c -> new Attempt.Ok(new Reply.Complete(c.response()), c.head());
                case ChatOutcome.Failed f -> Attempt.failed(f.failure());
                case ChatOutcome.Streaming s -> gate.open(s, started, requestId);
            };
        };
    }

    /**
     * A request in the upstream's own dialect, passed through; its body is made for each route's
     * model. An Anthropic stream goes through the readiness gate (SPEC ST-0) as events, relayed byte
     * for byte.
     */
    static AttemptCall passthrough(String dialect, PassthroughBody body, boolean stream, String requestId, Duration timeout,
            Map<String, String> clientHeaders, StreamGate gate) {
        return (route, target) -> {
            long started = System.nanoTime();
            return switch (route.provider().executor().passthrough(new PassthroughCall(dialect,
                    body.forModel(route.upstreamModel()), stream, target, requestId, timeout, clientHeaders))) {
                case PassthroughOutcome.Accepted a when stream && PassthroughCall.ANTHROPIC_MESSAGES.equals(dialect) ->
                        gate.openAnthropic(a.response(), started, requestId);
                case PassthroughOutcome.Accepted a when stream && PassthroughCall.OPENAI_RESPONSES.equals(dialect) ->
                        gate.openResponses(a.response(), started, requestId);
                case PassthroughOutcome.Accepted a -> new Attempt.Ok(new Reply.Raw(a.response(), stream), a.response().head());
                case PassthroughOutcome.Failed f -> Attempt.failed(f.failure());
            };
        };
    }

    /**
     * A request in a dialect some upstreams speak themselves, decided per connection: passed
     * through when the target's executor speaks it for that connection (SPEC API-3), translated
     * through the canonical model otherwise — and at once on the same connection when the upstream
     * turns out not to serve the dialect's endpoint ({@link NativeDialects}).
     */
    static AttemptCall dialect(ClientRequest.Dialect d, String requestId, Duration timeout, StreamGate gate, NativeDialects natives) {
        AttemptCall translated = chat(d.request(), requestId, timeout, d.clientHeaders(), gate);
        AttemptCall native_ = passthrough(d.dialect(), d.body(), d.request().stream(), requestId, timeout, d.clientHeaders(), gate);
        return (route, target) -> {
            if (!route.provider().executor().supportsPassthrough(d.dialect(), target) || natives.unserved(d.dialect(), target)) {
                return translated.send(route, target);
            }
            Attempt attempt = native_.send(route, target);
            if (attempt instanceof Attempt.Failed f && natives.learn(d.dialect(), target, f)) {
                return translated.send(route, target);
            }
            return attempt;
        };
    }

    /** An embeddings request. */
    static AttemptCall embeddings(EmbeddingRequest request, String requestId, Duration timeout) {
        return (route, target) -> switch (route.provider().executor().embed(
                new EmbeddingCall(request.withModel(route.upstreamModel()), target, requestId, timeout))) {
            case EmbeddingOutcome.Completed c -> new Attempt.Ok(new Reply.Embeddings(c.bodyJson()), c.head());
            case EmbeddingOutcome.Failed f -> Attempt.failed(f.failure());
        };
    }
}
