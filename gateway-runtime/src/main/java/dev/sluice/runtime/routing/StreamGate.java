package dev.sluice.runtime.routing;

import dev.sluice.api.ChatOutcome;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.io.AnswerBuffers;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.stream.AnthropicSseEvents;
import dev.sluice.runtime.stream.ResponsesSseEvents;
import dev.sluice.runtime.stream.ChunkSource;
import dev.sluice.runtime.stream.Pump;
import dev.sluice.runtime.stream.Signal;
import dev.sluice.runtime.stream.SseEvent;
import dev.sluice.runtime.stream.StreamRules;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The readiness gate of a stream (SPEC ST-0): before the first useful event (content, a tool call,
 * reasoning, a finish) nothing is sent to the client, so the attempt may still fail over with a
 * meaningful status. The upstream is read on a pump; the wait is bounded by
 * {@code streamRecovery.readinessTimeoutMs} (the gateway's own timer: BO-7) and ends early when the
 * client leaves (BO-6). An upstream that ends before a useful event is an early EOF, which the
 * dispatcher re-attempts on the same connection; an Anthropic {@code error} event before it (an
 * {@code overloaded_error} right after {@code message_start}) is the upstream's error, and falls
 * back like one.
 */
final class StreamGate {

    /** How often the client is asked about while the gate waits. */
    static final long LIVENESS_SLICE_NANOS = 250_000_000L;

    private final StreamRules rules;
    private final ClientLiveness client;
    private final AnswerBuffers buffers;


    /**
     * A gate for one request.
     *
     * @param rules the settings, as read for this request
     * @param client whether the client is still there
     * @param buffers the shared answer budget large stream frames count against (issue 29)
     */
    StreamGate(StreamRules rules, ClientLiveness client, AnswerBuffers buffers) {
        this.rules = rules;
        this.client = client;
        this.buffers = buffers;
    }

    /** @return the settings */
    StreamRules rules() {
        return rules;
    }

    /**
     * Waits for a canonical stream's first useful event.
     *
     * @param s the executor's stream
     * @param startedNanos when the attempt started
     * @param requestId the request id (names the pump's thread)
     * @return the attempt: a served stream, or why it failed
     */
    Attempt open(ChatOutcome.Streaming s, long startedNanos, String requestId) {
        return await(new Pump<>(new ChunkSource(s.chunks()), "sluice-stream-" + requestId, ChunkSource::size, buffers), Signal::of, startedNanos, null,
                (prefix, pump) -> new Reply.Stream(prefix, pump, rules, startedNanos, s.head()));
    }

    /**
     * Waits for the first useful event of an Anthropic stream passed through.
     *
     * @param response the accepted upstream response
     * @param startedNanos when the attempt started
     * @param requestId the request id
     * @return the attempt
     */
    Attempt openAnthropic(UpstreamResponse response, long startedNanos, String requestId) {
        Pump<SseEvent> pump = new Pump<>(new AnthropicSseEvents(response.body(), response::close, response.maxEventBytes()), "sluice-stream-" + requestId,
                SseEvent::size, buffers);
        return await(pump, SseEvent::signal, startedNanos, e -> "error".equals(e.type()) ? upstreamError(response.head(), e) : null,
                (prefix, p) -> new Reply.RawStream(prefix, p, rules, startedNanos, response.head()));
    }

    /**
     * Waits for the first useful event of an OpenAI Responses stream passed through.
     *
     * @param response the accepted upstream response
     * @param startedNanos when the attempt started
     * @param requestId the request id
     * @return the attempt
     */
    Attempt openResponses(UpstreamResponse response, long startedNanos, String requestId) {
        Pump<SseEvent> pump = new Pump<>(new ResponsesSseEvents(response.body(), response::close, response.maxEventBytes()), "sluice-stream-" + requestId,
                SseEvent::size, buffers);
        return await(pump, SseEvent::signal, startedNanos,
                e -> "error".equals(e.type()) || "response.failed".equals(e.type()) ? responsesError(response.head(), e) : null,
                (prefix, p) -> new Reply.RawStream(prefix, p, rules, startedNanos, response.head()));
    }

    private interface Ready<T> {
        Attempt served(List<T> prefix, Pump<T> pump);
    }

    private <T> Attempt await(Pump<T> pump, Function<T, Signal> signal, long startedNanos, Function<T, Attempt> failsOn, Ready<T> ready) {
        long deadline = startedNanos + rules.readinessTimeoutMs() * 1_000_000L;
        List<T> prefix = new ArrayList<>(2);
        boolean served = false;
        long askedAt = System.nanoTime();
        try {
            while (true) {
                long now = System.nanoTime();
                long left = deadline - now;
                if (left <= 0) {
                    return new Attempt.Failed(new AttemptFailure.GatewayTimer(AttemptFailure.Timer.STREAM_READINESS,
                            rules.readinessTimeoutMs()));
                }
                // by the clock, not only when the upstream is silent: comments every 100 ms must not hide a client that left
                if (now - askedAt >= LIVENESS_SLICE_NANOS) {
                    askedAt = now;
                    if (!client.connected()) {
                        return new Attempt.Failed(new AttemptFailure.ClientGone());
                    }
                }
                Pump.Item<T> item = pump.poll(Math.min(left, LIVENESS_SLICE_NANOS));
                if (item == null) {
                    continue;
                }
                switch (item) {
                    case Pump.Next<T> n -> {
                        Attempt failed = failsOn == null ? null : failsOn.apply(n.value());
                        if (failed != null) {
                            return failed;
                        }
                        Signal s = signal.apply(n.value());
                        if (s.heartbeat()) {
                            continue;
                        }
                        prefix.add(n.value());
                        // held until written: a hostile upstream's metadata before its first useful event meets the budget
                        pump.keep();
                        if (s.useful()) {
                            served = true;
                            return ready.served(prefix, pump);
                        }
                    }
                    case Pump.End<T> e -> {
                        return new Attempt.Failed(new AttemptFailure.EarlyEof("the upstream stream ended before its first useful event"
                                + (prefix.isEmpty() ? "" : " (after " + prefix.size() + " metadata frame(s))")));
                    }
                    case Pump.Failed<T> f -> {
                        if (f.failure() instanceof IOException io) {
                            TransportError t = TransportError.of(io);
                            if (io instanceof EOFException || t.kind() == TransportErrorKind.CONNECTION_RESET) {
                                // the upstream said 200, then closed (or reset) before anything useful
                                return new Attempt.Failed(new AttemptFailure.EarlyEof(
                                        "the upstream stream ended before its first useful event: " + t.describe()));
                            }
                            return Attempt.failed(t);
                        }
                        return Attempt.protocol(String.valueOf(f.failure().getMessage()));
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

    /** An Anthropic {@code error} event before anything useful: the upstream's error, with the status its type stands for. */
    private static Attempt upstreamError(ResponseHead head, SseEvent e) {
        String data = e.data() == null ? "" : e.data();
        int status = data.contains("overloaded_error") ? 529 : data.contains("rate_limit_error") ? 429
                : data.contains("invalid_request_error") ? 400 : 500;
        return Attempt.failed(UpstreamError.builder(new ResponseHead(status, head.headers()))
                .body(data)
                .message("the upstream stream sent an error before its first useful event: " + data)
                .build());
    }

    /**
     * A Responses {@code error} or {@code response.failed} event before anything useful: the
     * upstream's error, with the status its code stands for (a rate limit is a 429 whatever the
     * 200 said), so the failure path cools, fails over or answers as for an error status.
     */
    private static Attempt responsesError(ResponseHead head, SseEvent e) {
        String data = e.data() == null ? "" : e.data();
        int status = data.contains("rate_limit") || data.contains("insufficient_quota") ? 429
                : data.contains("overloaded") ? 503
                : data.contains("invalid_request") || data.contains("invalid_prompt") || data.contains("context_length_exceeded") ? 400
                : 500;
        return Attempt.failed(UpstreamError.builder(new ResponseHead(status, head.headers()))
                .body(data)
                .message("the upstream stream sent " + e.type() + " before its first useful event: " + data)
                .build());
    }
}
