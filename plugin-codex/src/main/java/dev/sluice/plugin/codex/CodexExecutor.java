package dev.sluice.plugin.codex;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamCallInfo;
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
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Serves a {@code codex} connection. Chat (and messages, which the runtime hands over as chat) is
 * translated to a Responses request ({@link ResponsesRequestWriter}), sent to
 * {@code POST {base}/responses} with the connection's bearer token and the account headers, and
 * the event stream translated back ({@link ResponsesEvents}); a client that asked for no stream
 * gets it gathered ({@link StreamGatherer}). {@code /v1/responses} requests are passed through
 * the host's built-in Responses executor, which sends them unchanged but for the model. Stateless
 * apart from final fields; thread-safe.
 */
final class CodexExecutor implements ProviderExecutor {

    /** Error bodies are read up to this size. */
    static final int MAX_ERROR_BODY = 64 * 1024;

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final ProviderExecutor passthrough;
    private final System.Logger logger;
    private final AccountHeaders accountHeaders = new AccountHeaders();

    CodexExecutor(UpstreamHttp http, InstantSource clock, ProviderExecutor passthrough, System.Logger logger) {
        this.http = http;
        this.clock = clock;
        this.passthrough = passthrough;
        this.logger = logger;
    }

    @Override
    public ChatOutcome chat(ChatCall call) {
        UpstreamTarget target = call.target();
        ResponsesRequestWriter.Translation translation;
        try {
            translation = ResponsesRequestWriter.write(call.request());
        } catch (IllegalArgumentException e) {
            // refused before sending: the client's request, not the account (a 400 the client sees)
            return new ChatOutcome.Failed(UpstreamError.builder(new ResponseHead(400, Map.of()))
                    .body("")
                    .errorCode("invalid_request")
                    .errorType("invalid_request_error")
                    .message(e.getMessage())
                    .build());
        }
        URI uri = endpoint(target.baseUrl());
        UpstreamRequest request = new UpstreamRequest("POST", uri, headers(target, call), translation.bytes(), call.timeout());
        UpstreamResponse response;
        try {
            response = target.httpOr(http).send(request);
        } catch (IOException e) {
            logger.log(System.Logger.Level.DEBUG, () -> "codex " + call.requestId() + " " + uri + " failed: " + e);
            return new ChatOutcome.Failed(TransportError.of(e));
        }
        ResponseHead head = response.head();
        logger.log(System.Logger.Level.DEBUG, () -> "codex " + call.requestId() + " " + uri + " -> " + head.status()
                + (translation.dropped().isEmpty() ? "" : " (dropped parameters " + translation.dropped() + ")"));
        if (head.status() < 200 || head.status() > 299) {
            return new ChatOutcome.Failed(readError(response));
        }
        long created = clock.instant().getEpochSecond();
        ResponsesSseStream stream = new ResponsesSseStream(response, new ResponsesEvents(call.request().model(), created));
        if (call.request().stream()) {
            return new ChatOutcome.Streaming(stream, head);
        }
        try (stream) {
            return new ChatOutcome.Completed(StreamGatherer.gather(stream, call.request().model(), created), head);
        } catch (IOException e) {
            return new ChatOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL, e.getMessage()));
        }
    }

    @Override
    public boolean supportsPassthrough(String dialect) {
        return PassthroughCall.OPENAI_RESPONSES.equals(dialect);
    }

    @Override
    public boolean supportsPassthrough(String dialect, UpstreamTarget target) {
        return supportsPassthrough(dialect);
    }

    @Override
    public PassthroughOutcome passthrough(PassthroughCall call) {
        return passthrough.passthrough(call);
    }

    /** {@code {base}/responses}: Codex's {@code ResponsesClient::path} for the Responses wire. */
    static URI endpoint(String baseUrl) {
        String base = baseUrl;
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + "/responses");
    }

    private Map<String, String> headers(UpstreamTarget target, ChatCall call) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", "application/json");
        h.put("Accept", "text/event-stream");
        String token = target.credentials().bearerToken();
        if (token != null && !token.isEmpty()) {
            h.put("Authorization", "Bearer " + token);
        }
        h.putAll(accountHeaders.compute(target, new UpstreamCallInfo(UpstreamCallInfo.CHAT, call.request().model(), true,
                call.requestId())));
        return h;
    }

    private static UpstreamFailure readError(UpstreamResponse response) {
        ResponseHead head = response.head();
        int status = head.status();
        if (status < 400) {
            // redirects are not followed and 1xx/3xx are no answer: the gateway's own 502, not a 3xx to the client
            response.close();
            return new TransportError(TransportErrorKind.PROTOCOL, "upstream answered HTTP " + status
                    + head.first("location").map(l -> " (Location: " + l + ")").orElse("") + " instead of an answer");
        }
        try (response) {
            return CodexErrorReader.read(head, response.bodyText(MAX_ERROR_BODY));
        } catch (IOException e) {
            return CodexErrorReader.read(head, "");
        }
    }
}
