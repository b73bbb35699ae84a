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
 * unread for the runtime to relay. Both paths send through one method, so authentication and
 * OAuth refresh cannot drift apart.
 *
 * <p>For an {@code oauth} connection with a refresh token, {@link OAuthRefresher} renews the access
 * token before the call when it is expired (within the skew), or after an upstream {@code 401},
 * in which case the call is sent once more with the new token. A call refreshes at most once and
 * is retried at most once. A failed refresh ends the call as a {@code 401} whose error code is
 * {@value #EXPIRED_CODE} (SPEC CC-6).
 *
 * <p>Thread-safe: no per-request state in fields; the refresher's per-connection state is shared
 * by all calls on purpose.
 */
final class ClaudeExecutor implements ProviderExecutor {

    /** The Messages endpoint, appended to the host-root base URL (SPEC DM-1b). */
    static final String MESSAGES_PATH = "/v1/messages";
    /** Error bodies are read up to this size. */
    static final int MAX_ERROR_BODY = 64 * 1024;
    /** Error code of a call whose OAuth token is expired and could not be refreshed (SPEC CC-6). */
    static final String EXPIRED_CODE = "expired";
    /** Error type of that failure (Anthropic's type for a refused credential). */
    static final String AUTHENTICATION_ERROR = "authentication_error";
    /** Message prefix of that failure; the reason follows. */
    static final String EXPIRED_MESSAGE = "OAuth token expired and refresh failed: ";

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final AnthropicHeaders headers;
    private final MessagesRequestWriter writer;
    private final MessagesResponseReader reader;
    private final OAuthRefresher refresher;
    private final LowPriorityLane lane;
    private final LimitReset resets;

    ClaudeExecutor(UpstreamHttp http, InstantSource clock, AnthropicHeaders headers, MessagesRequestWriter writer,
            OAuthRefresher refresher) {
        this(http, clock, headers, writer, refresher, null);
    }

    ClaudeExecutor(UpstreamHttp http, InstantSource clock, AnthropicHeaders headers, MessagesRequestWriter writer,
            OAuthRefresher refresher, dev.sluice.api.SharedNotes notes) {
        this.http = http;
        this.clock = clock;
        this.headers = headers;
        this.writer = writer;
        this.reader = new MessagesResponseReader(clock);
        this.refresher = refresher;
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
     * translated and the passthrough path). For a refreshable {@code oauth} connection the token is
     * renewed before sending when expired, and once after a {@code 401}, in which case the request
     * is sent once more with the new token.
     */
    private Exchange exchange(UpstreamTarget original, URI uri, byte[] payload, boolean stream,
            Map<String, String> clientHeaders, Duration timeout) {
        UpstreamTarget target = original;
        boolean refreshable = OAuthRefresher.applies(target);
        OAuthRefresher.Tokens sent = null;
        boolean refreshSpent = false;
        if (refreshable) {
            OAuthRefresher.Result before = refresher.beforeSend(target, timeout);
            if (before instanceof OAuthRefresher.Failed failed) {
                // expired before sending and not renewable: the Messages API is not called at all
                return new Exchange.NotSent(expired(new ResponseHead(401, Map.of("content-type", List.of("application/json"))), null,
                        failed.reason()));
            }
            OAuthRefresher.Usable usable = (OAuthRefresher.Usable) before;
            sent = usable.tokens();
            refreshSpent = usable.renewed();
            target = sent.applyTo(original);
        }
        UpstreamResponse response;
        try {
            response = send(target, uri, payload, stream, clientHeaders, timeout);
        } catch (IOException e) {
            return new Exchange.NotSent(TransportError.of(e));
        }
        if (refreshable && !refreshSpent && response.head().status() == 401) {
            // the access token was refused: refresh once, then send once more with the new token
            UpstreamError refused = (UpstreamError) readError(response);
            OAuthRefresher.Result after = refresher.afterUnauthorized(original, sent, timeout);
            if (after instanceof OAuthRefresher.Failed failed) {
                return new Exchange.NotSent(expired(refused.head(), refused.body(), failed.reason()));
            }
            target = ((OAuthRefresher.Usable) after).tokens().applyTo(original);
            try {
                response = send(target, uri, payload, stream, clientHeaders, timeout);
            } catch (IOException e) {
                return new Exchange.NotSent(TransportError.of(e));
            }
        }
        return new Exchange.Answered(response);
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

    /**
     * The failure of a call whose OAuth token is expired and could not be refreshed: a {@code 401}
     * with error code {@value #EXPIRED_CODE} so the runtime classifies it as such (SPEC CC-6).
     *
     * @param head the upstream's {@code 401} head, or a synthetic one when the token was refreshed
     *     before sending and the Messages API was never called
     * @param body the upstream's error body, or null to write an Anthropic error envelope
     * @param reason why the refresh failed (never contains a token)
     */
    private static UpstreamError expired(ResponseHead head, String body, String reason) {
        String message = EXPIRED_MESSAGE + reason;
        String text = body != null ? body : "{\"type\":\"error\",\"error\":{\"type\":" + Json.quote(AUTHENTICATION_ERROR)
                + ",\"message\":" + Json.quote(message) + "}}";
        return new UpstreamError(head, text, EXPIRED_CODE, AUTHENTICATION_ERROR, message);
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
