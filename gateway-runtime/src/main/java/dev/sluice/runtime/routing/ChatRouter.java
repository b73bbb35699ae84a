package dev.sluice.runtime.routing;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Routes chat requests: one executor call per attempt, through the {@link Dispatcher}. */
public final class ChatRouter {

    private final Dispatcher dispatcher;
    private final Duration attemptTimeout;

    /**
     * Creates the router.
     *
     * @param dispatcher the attempt loop
     * @param attemptTimeout bound on connect + response headers of one attempt
     */
    public ChatRouter(Dispatcher dispatcher, Duration attemptTimeout) {
        this.dispatcher = dispatcher;
        this.attemptTimeout = attemptTimeout;
    }

    /**
     * Serves a chat request.
     *
     * @param route the resolved model
     * @param request the request (any model id: replaced by the route's upstream model)
     * @param caller the caller
     * @param requestId the request id
     * @param clientHeaders allow-listed client headers for the executor ({@link ChatCall#FORWARDABLE_CLIENT_HEADERS})
     * @return the dispatch result
     */
    public DispatchResult<ChatReply> chat(Route route, ChatRequest request, Caller caller, String requestId,
            Map<String, String> clientHeaders) {
        ChatRequest upstream = request.withModel(route.upstreamModel());
        return dispatcher.dispatch(route, caller, requestId, target -> {
            ChatOutcome outcome = route.provider().executor().chat(new ChatCall(upstream, target, requestId, attemptTimeout, clientHeaders));
            return switch (outcome) {
                case ChatOutcome.Completed c -> new AttemptResult.Ok<>(new ChatReply.Complete(c.response()), c.head().status(), c.head());
                case ChatOutcome.Failed f -> new AttemptResult.Failed<>(f.failure());
                case ChatOutcome.Streaming s -> prefetch(s);
            };
        });
    }

    /**
     * Passes a client request in the upstream's own dialect through (no canonical translation).
     * The caller relays the accepted response's body and closes it.
     *
     * @param route the resolved model (its executor supports the dialect)
     * @param dialect the dialect, e.g. {@link PassthroughCall#ANTHROPIC_MESSAGES}
     * @param body the client's body with the upstream model id
     * @param stream whether the client asked for a stream
     * @param caller the caller
     * @param requestId the request id
     * @param clientHeaders allow-listed client headers
     * @return the dispatch result
     */
    public DispatchResult<UpstreamResponse> passthrough(Route route, String dialect, byte[] body, boolean stream, Caller caller,
            String requestId, Map<String, String> clientHeaders) {
        return dispatcher.dispatch(route, caller, requestId, target -> switch (route.provider().executor().passthrough(
                new PassthroughCall(dialect, body, stream, target, requestId, attemptTimeout, clientHeaders))) {
            case PassthroughOutcome.Accepted a -> new AttemptResult.Ok<>(a.response(), a.response().head().status(), a.response().head());
            case PassthroughOutcome.Failed f -> new AttemptResult.Failed<>(f.failure());
        });
    }

    private static AttemptResult<ChatReply> prefetch(ChatOutcome.Streaming s) {
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
            return new AttemptResult.Failed<>(TransportError.of(e));
        } catch (RuntimeException e) {
            s.chunks().close();
            return new AttemptResult.Failed<>(new TransportError(TransportErrorKind.PROTOCOL, String.valueOf(e.getMessage())));
        }
        if (prefix.isEmpty()) {
            s.chunks().close();
            return new AttemptResult.Failed<>(new TransportError(TransportErrorKind.CONNECTION_RESET,
                    "the upstream stream ended before its first chunk"));
        }
        return new AttemptResult.Ok<>(new ChatReply.Stream(prefix, s.chunks()), s.head().status(), s.head());
    }
}
