package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.Recovery;
import dev.sluice.api.RecoveryCall;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * Calls the Anthropic Messages API ({@code POST {baseUrl}/v1/messages}) for one attempt: the
 * canonical request is translated by {@link MessagesRequestWriter}, the headers are built from
 * scratch by {@link AnthropicHeaders}, and the answer comes back through
 * {@link MessagesResponseReader} or, streamed, {@link MessagesChunkStream}. Failures are values,
 * never exceptions.
 *
 * <p>A client that already speaks Anthropic ({@link PassthroughCall#ANTHROPIC_MESSAGES}) is passed
 * through: its body goes upstream unchanged, with the same headers, and a 2xx answer is returned
 * unread for the runtime to relay. Both paths send through one method, so authentication cannot
 * drift apart.
 *
 * <p>An {@code oauth} connection's access token is renewed by the host from the plugin's login
 * description ({@link ClaudeLogin}, issue 36): ahead of its expiry, and once after an upstream
 * {@code 401}, when the host sends the attempt once more with the new token. The executor sends
 * the token its target carries.
 *
 * <p>Thread-safe: no per-request state in fields.
 */
final class ClaudeExecutor implements ProviderExecutor {

    /** The Messages endpoint, appended to the host-root base URL (SPEC DM-1b). */
    static final String MESSAGES_PATH = "/v1/messages";
    /** Error bodies are read up to this size. */
    static final int MAX_ERROR_BODY = 64 * 1024;

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final AnthropicHeaders headers;
    private final MessagesRequestWriter writer;
    private final MessagesResponseReader reader;
    private final LowPriorityLane lane;
    private final LimitReset resets;

    ClaudeExecutor(UpstreamHttp http, InstantSource clock, AnthropicHeaders headers, MessagesRequestWriter writer) {
        this(http, clock, headers, writer, null);
    }

    ClaudeExecutor(UpstreamHttp http, InstantSource clock, AnthropicHeaders headers, MessagesRequestWriter writer,
            dev.sluice.api.SharedNotes notes) {
        this.http = http;
        this.clock = clock;
        this.headers = headers;
        this.writer = writer;
        this.reader = new MessagesResponseReader(clock);
        this.lane = new LowPriorityLane(clock, () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble(), notes);
        this.resets = new LimitReset(http, clock, headers);
    }

    /**
     * A subscription account's usage wall (SPEC §9), before the runtime's generic failure path, for
     * connections that opt in ({@code providerSpecificData.autoLimitReset},
     * {@code .lowPriorityMode}): the session-limit reset first (CL-7), then the low-priority lane
     * (CL-2); while the lane is active a busy slot or a 529 is waited out (CL-3) and an ending
     * verdict hands the answer on (CL-4). Everything else goes on as it came.
     */
    @Override
    public Recovery recover(RecoveryCall call) {
        if (!(call.failure() instanceof UpstreamError e)) {
            return Recovery.handOn();
        }
        Map<String, Object> psd = call.target().providerSpecificData();
        boolean laneOn = Boolean.TRUE.equals(psd.get("lowPriorityMode"));
        boolean resetOn = Boolean.TRUE.equals(psd.get("autoLimitReset"));
        if (!laneOn && !resetOn) {
            return Recovery.handOn();
        }
        String id = call.target().connectionId();
        UnifiedLimits u = UnifiedLimits.of(e.head());
        if (lane.active(id, laneOn)) {
            return lane.whileActive(id, e.head().status(), u, call);
        }
        if (!u.wall(e.head().status())) {
            return Recovery.handOn();
        }
        if (resetOn && resets.tryReset(call.target())) {
            return Recovery.retryNow();
        }
        return laneOn && lane.accept(id, u) ? Recovery.retryNow() : Recovery.handOn();
    }

    @Override
    public Map<String, Object> connectionState(String connectionId) {
        Map<String, Object> out = new java.util.LinkedHashMap<>(lane.describe(connectionId));
        out.putAll(resets.describe(connectionId));
        return out;
    }

    @Override
    public ChatOutcome chat(ChatCall call) {
        boolean stream = call.request().stream();
        URI uri;
        try {
            uri = endpoint(call.target().baseUrl());
        } catch (IllegalArgumentException e) {
            return new ChatOutcome.Failed(invalidBaseUrl(e));
        }
        byte[] payload = writer.write(call.request());
        return switch (exchange(call.target(), uri, payload, stream, call.clientHeaders(), call.timeout())) {
            case Exchange.NotSent notSent -> new ChatOutcome.Failed(notSent.failure());
            case Exchange.Answered answered -> answer(answered.response(), stream);
        };
    }

    /**
     * True only for {@link PassthroughCall#ANTHROPIC_MESSAGES}: the upstream is the Messages API.
     */
    @Override
    public boolean supportsPassthrough(String dialect) {
        return PassthroughCall.ANTHROPIC_MESSAGES.equals(dialect);
    }

    /**
     * Sends the client's Anthropic body unchanged to {@code POST {baseUrl}/v1/messages}, with the
     * same headers, authentication and OAuth refresh as a translated call. A 2xx answer is handed
     * back unread for the runtime to relay byte-for-byte; any other answer fails as a translated
     * call's would.
     */
    @Override
    public PassthroughOutcome passthrough(PassthroughCall call) {
        if (!supportsPassthrough(call.dialect())) {
            throw new IllegalStateException("the claude executor does not pass " + call.dialect() + " requests through");
        }
        URI uri;
        try {
            uri = endpoint(call.target().baseUrl());
        } catch (IllegalArgumentException e) {
            return new PassthroughOutcome.Failed(invalidBaseUrl(e));
        }
        return switch (exchange(call.target(), uri, call.body(), call.stream(), call.clientHeaders(), call.timeout())) {
            case Exchange.NotSent notSent -> new PassthroughOutcome.Failed(notSent.failure());
            case Exchange.Answered answered -> {
                UpstreamResponse response = answered.response();
                int status = response.head().status();
                yield status >= 200 && status <= 299
                        ? new PassthroughOutcome.Accepted(response)
                        : new PassthroughOutcome.Failed(readError(response));
            }
        };
    }

    /** What sending one request produced: an answer of any status, or a failure without one. */
    private sealed interface Exchange {
        /** The Messages API answered (any status; the body unread). */
        record Answered(UpstreamResponse response) implements Exchange {
        }

        /** No usable answer: a transport failure or an OAuth token that could not be refreshed. */
        record NotSent(UpstreamFailure failure) implements Exchange {
        }
    }

    /**
     * Sends one request body to the Messages API with the connection's headers (shared by the
     * translated and the passthrough path). The host renews an {@code oauth} connection's token
     * (ahead of its expiry, and once after a {@code 401}, sending the attempt once more); the
     * executor sends the token its target carries.
     */
    private Exchange exchange(UpstreamTarget target, URI uri, byte[] payload, boolean stream,
            Map<String, String> clientHeaders, Duration timeout) {
        try {
            return new Exchange.Answered(send(target, uri, payload, stream, clientHeaders, timeout));
        } catch (IOException e) {
            return new Exchange.NotSent(TransportError.of(e));
        }
    }

    /** The outcome of the Messages API's answer. */
    private ChatOutcome answer(UpstreamResponse response, boolean stream) {
        ResponseHead head = response.head();
        if (head.status() < 200 || head.status() > 299) {
            return new ChatOutcome.Failed(readError(response));
        }
        if (stream) {
            return new ChatOutcome.Streaming(new MessagesChunkStream(response, new StreamTranslator(clock.instant().getEpochSecond())), head);
        }
        try (response) {
            String body = new String(response.wholeBody(), StandardCharsets.UTF_8);
            return new ChatOutcome.Completed(reader.read(body), head);
        } catch (IOException e) {
            return new ChatOutcome.Failed(TransportError.of(e));
        } catch (MalformedAnswerException e) {
            return new ChatOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL,
                    "upstream answered " + head.status() + " with a body that is not a Messages answer: " + e.getMessage()));
        }
    }

    private UpstreamResponse send(UpstreamTarget target, URI uri, byte[] body, boolean stream, Map<String, String> clientHeaders,
            Duration timeout) throws IOException {
        Map<String, String> h = headers.build(target, stream, clientHeaders);
        if (lane.active(target.connectionId(), Boolean.TRUE.equals(target.providerSpecificData().get("lowPriorityMode")))) {
            // CL-2: every request of an account riding the low-priority lane says so
            h = new java.util.LinkedHashMap<>(h);
            h.put(LowPriorityLane.HEADER, LowPriorityLane.SLOW);
        }
        UpstreamResponse response = target.httpOr(http).send(new UpstreamRequest("POST", uri, h, body, timeout));
        lane.observe(target.connectionId(), response.head());
        return response;
    }

    private static TransportError invalidBaseUrl(IllegalArgumentException e) {
        return new TransportError(TransportErrorKind.OTHER, "the connection's base URL is not a valid URL: " + e.getMessage());
    }

    private static UpstreamFailure readError(UpstreamResponse response) {
        ResponseHead head = response.head();
        if (head.status() < 400) {
            // 1xx/3xx are no answer (redirects are not followed): the gateway's own 502, not a 3xx to the client
            response.close();
            return new TransportError(TransportErrorKind.PROTOCOL, "upstream answered HTTP " + head.status()
                    + head.first("location").map(l -> " (Location: " + l + ")").orElse("") + " instead of an answer");
        }
        try (response) {
            return ErrorReader.read(head, response.bodyText(MAX_ERROR_BODY));
        } catch (IOException e) {
            return ErrorReader.read(head, "");
        }
    }

    /**
     * The Messages endpoint of a base URL. The base is the host root (Anthropic SDK convention);
     * a base that already ends with {@code /v1} (the OpenAI SDK habit) gets only {@code /messages}.
     */
    static URI endpoint(String baseUrl) {
        String base = baseUrl;
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base.endsWith("/v1") ? base + "/messages" : base + MESSAGES_PATH);
    }
}
