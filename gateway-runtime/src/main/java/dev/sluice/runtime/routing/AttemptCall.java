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
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

    /** A chat request through the canonical model; a stream is read ahead to its first real chunk. */
    static AttemptCall chat(ChatRequest request, String requestId, Duration timeout, Map<String, String> clientHeaders) {
        return (route, target) -> switch (route.provider().executor().chat(
                new ChatCall(request.withModel(route.upstreamModel()), target, requestId, timeout, clientHeaders))) {
            case ChatOutcome.Completed c -> new Attempt.Ok(new Reply.Complete(c.response()), c.head());
            case ChatOutcome.Failed f -> Attempt.failed(f.failure());
            case ChatOutcome.Streaming s -> prefetch(s);
        };
    }

    /** A request in the upstream's own dialect, passed through; its body is made for each route's model. */
    static AttemptCall passthrough(String dialect, PassthroughBody body, boolean stream, String requestId, Duration timeout,
            Map<String, String> clientHeaders) {
        return (route, target) -> switch (route.provider().executor().passthrough(new PassthroughCall(dialect,
                body.forModel(route.upstreamModel()), stream, target, requestId, timeout, clientHeaders))) {
            case PassthroughOutcome.Accepted a -> new Attempt.Ok(new Reply.Raw(a.response(), stream), a.response().head());
            case PassthroughOutcome.Failed f -> Attempt.failed(f.failure());
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

    private static Attempt prefetch(ChatOutcome.Streaming s) {
        List<StreamChunk> prefix = new ArrayList<>(2);
        try {
            // read ahead to the first real chunk (keep-alives prove nothing). Not further: an OpenAI
            // upstream's first chunk is a role-only one that arrives at once, and waiting for content
            // would add the model's whole time-to-first-token to the first byte. Executors whose
            // upstream often fails right after a metadata frame hold that frame back themselves
            // (plugin-claude does with message_start).
            StreamChunk chunk;
            while ((chunk = s.chunks().next()) != null) {
                if (chunk.kind() != FrameKind.HEARTBEAT) {
                    prefix.add(chunk);
                    break;
                }
            }
        } catch (IOException e) {
            s.chunks().close();
            return Attempt.failed(TransportError.of(e));
        } catch (RuntimeException e) {
            s.chunks().close();
            return Attempt.protocol(String.valueOf(e.getMessage()));
        }
        if (prefix.isEmpty()) {
            s.chunks().close();
            return Attempt.failed(new TransportError(TransportErrorKind.CONNECTION_RESET, "the upstream stream ended before its first chunk"));
        }
        return new Attempt.Ok(new Reply.Stream(prefix, s.chunks()), s.head());
    }
}
