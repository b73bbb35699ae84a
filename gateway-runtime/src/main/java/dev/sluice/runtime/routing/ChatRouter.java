package dev.sluice.runtime.routing;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import java.io.IOException;
import java.time.Duration;
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
                case ChatOutcome.Completed c -> new AttemptResult.Ok<>(new ChatReply.Complete(c.response()), c.head().status());
                case ChatOutcome.Failed f -> new AttemptResult.Failed<>(f.failure());
                case ChatOutcome.Streaming s -> prefetch(s);
            };
        });
    }

    private static AttemptResult<ChatReply> prefetch(ChatOutcome.Streaming s) {
        StreamChunk first;
        try {
            // keep-alives before the first real event prove nothing: the first chunk is the first data
            do {
                first = s.chunks().next();
            } while (first != null && first.kind() == FrameKind.HEARTBEAT);
        } catch (IOException e) {
            s.chunks().close();
            return new AttemptResult.Failed<>(TransportError.of(e));
        } catch (RuntimeException e) {
            s.chunks().close();
            return new AttemptResult.Failed<>(new TransportError(TransportErrorKind.PROTOCOL, String.valueOf(e.getMessage())));
        }
        if (first == null) {
            s.chunks().close();
            return new AttemptResult.Failed<>(new TransportError(TransportErrorKind.CONNECTION_RESET,
                    "the upstream stream ended before its first chunk"));
        }
        return new AttemptResult.Ok<>(new ChatReply.Stream(first, s.chunks()), s.head().status());
    }
}
