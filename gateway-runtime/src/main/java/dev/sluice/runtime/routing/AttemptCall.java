package dev.sluice.runtime.routing;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.EmbeddingCall;
import dev.sluice.api.EmbeddingOutcome;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.Recovery;
import dev.sluice.api.RecoveryCall;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
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
                case ChatOutcome.Completed c -> new Reply.Complete(c.response(), c.openAiBody(), c.head());
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
                case PassthroughOutcome.Accepted a when !stream -> whole(a.response());
                case PassthroughOutcome.Accepted a -> new Reply.Raw(a.response(), stream);
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
                // only when the connection was learned unserved between the walk's filter and now: nothing to translate
                return d.untranslatable() == null ? translated.send(route, target)
                        : Attempt.protocol("the connection stopped passing " + d.dialect() + " requests through");
            }
            Attempt attempt = native_.send(route, target);
            if (attempt instanceof Attempt.Failed f && natives.learn(d.dialect(), target, f) && d.untranslatable() == null) {
                return translated.send(route, target);
            }
            return attempt;
        };
    }

    /**
     * Which connections pass a dialect's requests through: the only ones that may serve a request
     * the canonical model cannot carry (issue 32).
     */
    static java.util.function.BiPredicate<Route, UpstreamTarget> passesThrough(String dialect, NativeDialects natives) {
        return (route, target) -> route.provider().executor().supportsPassthrough(dialect, target) && !natives.unserved(dialect, target);
    }

    /**
     * A whole (non-streamed) passthrough answer is read within the attempt, so that a body that
     * breaks, trickles past its deadline or overflows is this attempt's failure and fails over,
     * rather than a 502 after the connection was already chosen.
     */
    private static Attempt whole(dev.sluice.api.upstream.UpstreamResponse response) {
        dev.sluice.api.upstream.ResponseHead head = response.head();
        byte[] body;
        try (response) {
            body = response.wholeBody();
        } catch (java.io.IOException e) {
            return Attempt.failed(dev.sluice.api.upstream.TransportError.of(e));
        }
        byte[] bytes = body;
        dev.sluice.api.upstream.UpstreamResponse buffered = new dev.sluice.api.upstream.UpstreamResponse() {
            private final java.io.InputStream in = new java.io.ByteArrayInputStream(bytes);

            @Override
            public dev.sluice.api.upstream.ResponseHead head() {
                return head;
            }

            @Override
            public java.io.InputStream body() {
                return in;
            }

            @Override
            public byte[] wholeBody() {
                return bytes;
            }

            @Override
            public void close() {
            }
        };
        return new Reply.Raw(buffered, false);
    }

    /** Retries the recovery loop allows one attempt, whatever the executor decides (a guard against a loop). */
    int MAX_RECOVERY_RETRIES = 50;
    /** The margin kept before the request's upstream start timeout when waiting for recovery (SPEC CL-3). */
    Duration RECOVERY_MARGIN = Duration.ofSeconds(5);

    /**
     * An attempt whose upstream failures are first offered to the executor's own recovery
     * ({@link dev.sluice.api.ProviderExecutor#recover}): a retry on the same connection at once or
     * after a wait — bounded by the request's upstream start timeout less {@link #RECOVERY_MARGIN},
     * cut short when the client leaves — or the failure handed on to the generic failure path.
     */
    static AttemptCall recovering(AttemptCall inner, ClientLiveness client, Duration timeout) {
        return (route, target) -> {
            long started = System.nanoTime();
            long waitedNanos = 0;
            for (int retries = 0;; retries++) {
                Attempt attempt = inner.send(route, target);
                if (!(attempt instanceof Attempt.Failed f) || !(f.failure() instanceof AttemptFailure.Upstream u)
                        || retries >= MAX_RECOVERY_RETRIES) {
                    return attempt;
                }
                long budgetNanos = Math.max(0, timeout.minus(RECOVERY_MARGIN).toNanos() - (System.nanoTime() - started));
                Recovery decision;
                try {
                    decision = route.provider().executor().recover(new RecoveryCall(target, u.failure(), retries,
                            Duration.ofNanos(waitedNanos), Duration.ofNanos(budgetNanos)));
                } catch (RuntimeException e) {
                    System.getLogger(AttemptCall.class.getName()).log(System.Logger.Level.WARNING,
                            "the " + route.provider().id() + " executor's recovery failed; handing the failure on: " + e);
                    return attempt;
                }
                switch (decision) {
                    case Recovery.HandOn h -> {
                        return attempt;
                    }
                    case Recovery.RetryNow r -> { }
                    case Recovery.RetryAfter r -> {
                        long wait = r.delay().toNanos();
                        if (wait > budgetNanos) {
                            return attempt;
                        }
                        if (!waitWhileConnected(client, wait)) {
                            return Thread.currentThread().isInterrupted() ? attempt : new Attempt.Failed(new AttemptFailure.ClientGone());
                        }
                        waitedNanos += wait;
                    }
                }
            }
        };
    }

    /** Sleeps in slices while the client is there; false when it left or the thread was interrupted. */
    private static boolean waitWhileConnected(ClientLiveness client, long nanos) {
        long deadline = System.nanoTime() + nanos;
        try {
            while (true) {
                if (!client.connected()) {
                    return false;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                Thread.sleep(Duration.ofNanos(Math.min(left, 250_000_000L)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** An embeddings request. */
    static AttemptCall embeddings(EmbeddingRequest request, String requestId, Duration timeout) {
        return (route, target) -> switch (route.provider().executor().embed(
                new EmbeddingCall(request.withModel(route.upstreamModel()), target, requestId, timeout))) {
            case EmbeddingOutcome.Completed c -> new Reply.Embeddings(c.bodyJson(), c.head());
            case EmbeddingOutcome.Failed f -> Attempt.failed(f.failure());
        };
    }
}
