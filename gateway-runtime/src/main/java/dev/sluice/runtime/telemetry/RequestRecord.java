package dev.sluice.runtime.telemetry;

import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.runtime.routing.AttemptTally;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.stream.SseEvent;
import dev.sluice.runtime.stream.StreamEnding;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one client request did, filled in as it goes: by the request filter (arrival), the
 * authenticator (key id), the handler (model, outcome, usage), the routing path (attempts, as the
 * request's {@link AttemptTally}) and the stream renderer (how the stream ended); {@link Telemetry#finish} turns it into metrics, one
 * access-log line and its usage count. Never holds a key or a credential: only ids.
 */
public final class RequestRecord implements AttemptTally {

    /** A record that goes nowhere (requests outside the filter, unit tests of handlers). */
    public static RequestRecord detached() {
        return new RequestRecord("req_unknown", "GET", "/", 0, System.nanoTime());
    }

    private final String requestId;
    private final String method;
    private final String path;
    private final String api;
    private final long startedAtMs;
    private final long startedNanos;
    private final AtomicInteger attempts = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile String keyId;
    private volatile String requestedModel;
    private volatile String provider;
    private volatile String connectionId;
    private volatile String model;
    private volatile String failure;
    private volatile List<String> heldBack = List.of();
    private volatile long firstByteNanos;
    private volatile StreamEnding streamEnding;
    private volatile TokenCounts tokens = TokenCounts.UNKNOWN;
    private volatile String errorCode;

    RequestRecord(String requestId, String method, String path, long startedAtMs, long startedNanos) {
        this.requestId = requestId;
        this.method = method;
        this.path = path;
        this.api = Api.of(path);
        this.startedAtMs = startedAtMs;
        this.startedNanos = startedNanos;
    }

    /**
     * The caller's key id (never the key).
     *
     * @param id the key id ({@code admin} for the admin key)
     */
    public void keyId(String id) {
        this.keyId = id;
    }

    /**
     * What routing produced for the request. The upstream model (a metrics label, the access log's
     * {@code upstreamModel}) is kept only when the request went to a connection (served or failed there):
     * a name refused before any attempt is the client's raw string, and must not mint series
     * (issue 29); the client's name is still in {@code requestedModel}.
     *
     * @param requested the model the client named
     * @param outcome the outcome
     * @param nowNanos {@link System#nanoTime()} now: a served answer's first byte follows at once
     */
    public void routed(String requested, Outcome outcome, long nowNanos) {
        this.requestedModel = requested;
        if (outcome.route() != null) {
            this.provider = outcome.route().provider().id();
        }
        switch (outcome) {
            case Outcome.Served s -> {
                this.connectionId = s.connection().id();
                this.firstByteNanos = nowNanos;
                this.model = s.route().upstreamModel();
            }
            case Outcome.Failed f -> {
                this.connectionId = f.connection().id();
                this.failure = f.verdict().reason().wireName();
                this.model = f.route().upstreamModel();
            }
            case Outcome.Refused r -> {
                this.connectionId = r.connection().id();
                this.failure = r.refusal().name();
            }
            case Outcome.CoolingDown c -> this.heldBack = reasons(c.excluded());
            case Outcome.NoConnection n -> this.heldBack = reasons(n.excluded());
            case Outcome.Unroutable u -> this.failure = u.why().name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static List<String> reasons(List<ConnectionSelector.Excluded> excluded) {
        List<String> out = new ArrayList<>(excluded.size());
        for (ConnectionSelector.Excluded x : excluded) {
            out.add(x.candidate().connection().id() + ":" + x.exclusion().reason().wireName());
        }
        return List.copyOf(out);
    }

    /**
     * Usage the upstream reported (later reports win, field by field).
     *
     * @param counts the counts
     */
    public void usage(TokenCounts counts) {
        this.tokens = tokens.then(counts);
    }

    /**
     * Looks at a relayed stream frame for usage (a canonical chunk's, or a passed-through event's).
     *
     * @param frame the frame
     */
    public void frame(Object frame) {
        switch (frame) {
            case StreamChunk c when c.usage() != null && c.kind() != FrameKind.HEARTBEAT -> usage(TokenCounts.of(c.usage()));
            case SseEvent e when e.data() != null -> usage(TokenCounts.inAnswer(e.data()));
            default -> { }
        }
    }

    /**
     * How the relayed stream ended.
     *
     * @param ending the ending
     */
    public void streamEnded(StreamEnding ending) {
        this.streamEnding = ending;
    }

    /**
     * The error code of the answer (what the error mapper sent).
     *
     * @param code the code
     */
    public void errorCode(String code) {
        this.errorCode = code;
    }

    /** @return true the first time only: a request is finished once */
    boolean finishOnce() {
        return finished.compareAndSet(false, true);
    }

    /** One more upstream attempt of this request was recorded (the routing path counts them here). */
    @Override
    public void attempted() {
        attempts.incrementAndGet();
    }

    String requestId() {
        return requestId;
    }

    String method() {
        return method;
    }

    String path() {
        return path;
    }

    String api() {
        return api;
    }

    long startedAtMs() {
        return startedAtMs;
    }

    long startedNanos() {
        return startedNanos;
    }

    int attempts() {
        return attempts.get();
    }

    String keyId() {
        return keyId;
    }

    String requestedModel() {
        return requestedModel;
    }

    String provider() {
        return provider;
    }

    String connectionId() {
        return connectionId;
    }

    String model() {
        return model;
    }

    String failure() {
        return failure;
    }

    List<String> heldBack() {
        return heldBack;
    }

    long firstByteNanos() {
        return firstByteNanos;
    }

    StreamEnding streamEnding() {
        return streamEnding;
    }

    /** @return the usage known so far */
    public TokenCounts tokens() {
        return tokens;
    }

    String errorCode() {
        return errorCode;
    }
}
