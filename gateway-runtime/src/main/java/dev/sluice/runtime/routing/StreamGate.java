package dev.sluice.runtime.routing;

import dev.sluice.api.ChatOutcome;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.runtime.resilience.AttemptFailure;
import dev.sluice.runtime.stream.ChunkPump;
import dev.sluice.runtime.stream.Progress;
import dev.sluice.runtime.stream.StreamRules;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The readiness gate of a stream (SPEC ST-0): before the first useful event (content, a tool call,
 * reasoning, a finish) nothing is sent to the client, so the attempt may still fail over with a
 * meaningful status. The upstream is read on a pump; the wait is bounded by
 * {@code streamRecovery.readinessTimeoutMs} (the gateway's own timer: BO-7) and ends early when the
 * client leaves (BO-6). An upstream that ends before a useful event is an early EOF, which the
 * dispatcher re-attempts on the same connection.
 */
final class StreamGate {

    /** How often the client is asked about while the gate waits. */
    static final long LIVENESS_SLICE_NANOS = 250_000_000L;

    private final StreamRules rules;
    private final ClientLiveness client;

    /**
     * A gate for one request.
     *
     * @param rules the settings, as read for this request
     * @param client whether the client is still there
     */
    StreamGate(StreamRules rules, ClientLiveness client) {
        this.rules = rules;
        this.client = client;
    }

    /** @return the settings */
    StreamRules rules() {
        return rules;
    }

    /**
     * Waits for the stream's first useful event.
     *
     * @param s the executor's stream
     * @param startedNanos when the attempt started
     * @param requestId the request id (names the pump's thread)
     * @return the attempt: a served stream, or why it failed
     */
    Attempt open(ChatOutcome.Streaming s, long startedNanos, String requestId) {
        ChunkPump pump = new ChunkPump(s.chunks(), "sluice-stream-" + requestId);
        long deadline = startedNanos + rules.readinessTimeoutMs() * 1_000_000L;
        List<StreamChunk> prefix = new ArrayList<>(2);
        boolean served = false;
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return new Attempt.Failed(new AttemptFailure.GatewayTimer(AttemptFailure.Timer.STREAM_READINESS,
                            rules.readinessTimeoutMs()));
                }
                ChunkPump.Item item = pump.poll(Math.min(left, LIVENESS_SLICE_NANOS));
                if (item == null) {
                    if (!client.connected()) {
                        return new Attempt.Failed(new AttemptFailure.ClientGone());
                    }
                    continue;
                }
                switch (item) {
                    case ChunkPump.Chunk c -> {
                        if (c.chunk().kind() == FrameKind.HEARTBEAT) {
                            continue;
                        }
                        prefix.add(c.chunk());
                        if (Progress.useful(c.chunk())) {
                            served = true;
                            return new Attempt.Ok(new Reply.Stream(prefix, pump, rules, startedNanos), s.head());
                        }
                    }
                    case ChunkPump.End e -> {
                        return new Attempt.Failed(new AttemptFailure.EarlyEof("the upstream stream ended before its first useful event"
                                + (prefix.isEmpty() ? "" : " (after " + prefix.size() + " metadata frame(s))")));
                    }
                    case ChunkPump.Failed f -> {
                        return f.failure() instanceof IOException io ? Attempt.failed(TransportError.of(io))
                                : Attempt.protocol(String.valueOf(f.failure().getMessage()));
                    }
                }
            }
        } catch (InterruptedException e) {
            // the execution bound (RQ-2) stopped the attempt: the runner reports the gateway's timer
            Thread.currentThread().interrupt();
            return Attempt.protocol("interrupted while waiting for the stream's first event");
        } finally {
            if (!served) {
                pump.close();
            }
        }
    }
}
