package dev.sluice.runtime.routing;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A fake executor: what each connection answers is scripted per connection, one answer per call
 * (the last one repeats); every call is recorded. Streams and upstream answers count their closes.
 */
final class ScriptedExecutor implements ProviderExecutor {

    /** One call as the executor saw it. */
    record Call(String connectionId, String model, String kind, String body) {
    }

    private final Map<String, Deque<Function<ChatCall, ChatOutcome>>> scripts = new ConcurrentHashMap<>();
    final List<Call> calls = new CopyOnWriteArrayList<>();
    final AtomicInteger closes = new AtomicInteger();
    volatile boolean passthrough;
    /** The executor's own recovery (null: hand every failure on); every call offered is recorded. */
    volatile Function<dev.sluice.api.RecoveryCall, dev.sluice.api.Recovery> recovery;
    final List<dev.sluice.api.RecoveryCall> recoveries = new CopyOnWriteArrayList<>();

    @Override
    public dev.sluice.api.Recovery recover(dev.sluice.api.RecoveryCall call) {
        recoveries.add(call);
        return recovery == null ? dev.sluice.api.Recovery.handOn() : recovery.apply(call);
    }

    /** Scripts the answers of a connection, in order; the last repeats. */
    @SafeVarargs
    final ScriptedExecutor on(String connectionId, Function<ChatCall, ChatOutcome>... answers) {
        scripts.put(connectionId, new ArrayDeque<>(List.of(answers)));
        return this;
    }

    @Override
    public ChatOutcome chat(ChatCall call) {
        calls.add(new Call(call.target().connectionId(), call.request().model(), call.request().stream() ? "stream" : "chat", null));
        Deque<Function<ChatCall, ChatOutcome>> script = scripts.get(call.target().connectionId());
        if (script == null || script.isEmpty()) {
            return ok(call);
        }
        Function<ChatCall, ChatOutcome> next = script.size() > 1 ? script.pollFirst() : script.peekFirst();
        return next.apply(call);
    }

    @Override
    public boolean supportsPassthrough(String dialect) {
        return passthrough && PassthroughCall.ANTHROPIC_MESSAGES.equals(dialect);
    }

    @Override
    public PassthroughOutcome passthrough(PassthroughCall call) {
        String body = new String(call.body(), StandardCharsets.UTF_8);
        calls.add(new Call(call.target().connectionId(), null, "passthrough", body));
        return new PassthroughOutcome.Accepted(response(200, "{\"type\":\"message\"}"));
    }

    static ChatOutcome ok(ChatCall call) {
        return new ChatOutcome.Completed(new ChatResponse("id-" + call.target().connectionId(), call.request().model(), 1,
                List.of(new Choice(0, ChatMessage.text(Role.ASSISTANT, "hi from " + call.target().connectionId()), "stop")), null, Map.of()),
                new ResponseHead(200, Map.of()));
    }

    static Function<ChatCall, ChatOutcome> status(int status, String body) {
        return call -> new ChatOutcome.Failed(UpstreamError.builder(new ResponseHead(status, Map.of())).body(body).message(body).build());
    }

    static Function<ChatCall, ChatOutcome> throwing() {
        return call -> {
            throw new IllegalStateException("executor bug");
        };
    }

    /** A stream of {@code n} content chunks whose close is counted. */
    Function<ChatCall, ChatOutcome> stream(int n) {
        return call -> new ChatOutcome.Streaming(new ChunkStream() {
            int sent;

            @Override
            public StreamChunk next() {
                return sent++ < n ? new StreamChunk("c", call.request().model(), 1,
                        List.of(new ChunkChoice(0, null, "part" + sent, null, null, null)), null, Map.of()) : null;
            }

            @Override
            public void close() {
                closes.incrementAndGet();
            }
        }, new ResponseHead(200, Map.of()));
    }

    /**
     * A stream of the given chunks, then either its end or a silence that lasts until the stream
     * is closed (as a stalled upstream's would).
     */
    Function<ChatCall, ChatOutcome> streamThen(List<StreamChunk> chunks, boolean silentAtEnd) {
        return call -> new ChatOutcome.Streaming(new ChunkStream() {
            int sent;
            final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

            @Override
            public StreamChunk next() throws IOException {
                if (sent < chunks.size()) {
                    return chunks.get(sent++);
                }
                if (silentAtEnd) {
                    try {
                        closed.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IOException("stream closed");
                }
                return null;
            }

            @Override
            public void close() {
                closes.incrementAndGet();
                closed.countDown();
            }
        }, new ResponseHead(200, Map.of()));
    }

    static StreamChunk roleChunk() {
        return new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, Role.ASSISTANT, null, null, null, null)), null, Map.of());
    }

    static StreamChunk contentChunk(String text) {
        return new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, null, text, null, null, null)), null, Map.of());
    }

    /** Blocks until the attempt's thread is interrupted (the execution bound), then reports a reset. */
    static Function<ChatCall, ChatOutcome> hanging() {
        return call -> {
            try {
                new java.util.concurrent.CountDownLatch(1).await();
            } catch (InterruptedException e) {
                return new ChatOutcome.Failed(new dev.sluice.api.upstream.TransportError(
                        dev.sluice.api.upstream.TransportErrorKind.CONNECTION_RESET, "interrupted"));
            }
            throw new IllegalStateException("unreachable");
        };
    }

    private UpstreamResponse response(int status, String body) {
        InputStream in = new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
        return new UpstreamResponse() {
            @Override
            public ResponseHead head() {
                return new ResponseHead(status, Map.of());
            }

            @Override
            public InputStream body() {
                return in;
            }

            @Override
            public void close() {
                closes.incrementAndGet();
            }
        };
    }
}
