package dev.sluice.runtime.openai;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.EmbeddingCall;
import dev.sluice.api.EmbeddingOutcome;
import dev.sluice.api.PassthroughCall;
import dev.sluice.api.PassthroughOutcome;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamCallInfo;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import dev.sluice.api.ExecutorCustomizer;

/**
 * The built-in executor for OpenAI-compatible upstreams ({@code POST {baseUrl}/chat/completions}
 * and {@code /embeddings}; {@code /responses} passed through where the upstream serves it). Upstream
 * headers are built from scratch (SPEC SEC-5): only the content type, accept, user agent and the
 * connection's own credentials are sent.
 */
public final class OpenAiCompatibleExecutor implements ProviderExecutor {

    /** Error bodies are read up to this size. */
    static final int MAX_ERROR_BODY = 64 * 1024;

    private final UpstreamHttp http;
    private final OpenAiCodec codec;
    /** The connection setting that turns Responses passthrough on or off (a JSON boolean). */
    public static final String RESPONSES_API = "responsesApi";

    private final Map<String, String> extraHeaders;
    /** Whether connections without {@value #RESPONSES_API} pass {@code /v1/responses} requests through. */
    private final boolean responsesByDefault;
    /** A plugin's rewrite of the chat body ({@link ExecutorCustomizer#withChatBody}), or null. */
    private final UnaryOperator<String> chatBody;
    /** A plugin's per-request headers and query parameters (issue 27), or null: then nothing is computed. */
    private final PerRequestValues perRequest;
    private final Endpoints endpoints = new Endpoints();

    /**
     * Creates the executor.
     *
     * @param http the upstream client
     * @param codec the codec
     * @return the executor: no extra headers, no Responses passthrough, no plugin's adjustments (the
     *     {@code with...} methods and {@link #customized} add them)
     */
    public static OpenAiCompatibleExecutor create(UpstreamHttp http, OpenAiCodec codec) {
        return new OpenAiCompatibleExecutor(http, codec, Map.of(), false, null, null);
    }

    private OpenAiCompatibleExecutor(UpstreamHttp http, OpenAiCodec codec, Map<String, String> extraHeaders, boolean responsesByDefault,
            UnaryOperator<String> chatBody, PerRequestValues perRequest) {
        this.chatBody = chatBody;
        this.perRequest = perRequest;
        this.http = http;
        this.codec = codec;
        this.extraHeaders = Map.copyOf(extraHeaders);
        this.responsesByDefault = responsesByDefault;
    }

    /**
     * A copy for upstreams that serve the Responses API ({@link dev.sluice.api.HostContext#OPENAI_RESPONSES}):
     * {@code /v1/responses} requests are passed through unless a connection says
     * {@code "responsesApi": false}.
     *
     * @return the copy
     */
    public OpenAiCompatibleExecutor withResponsesPassthrough() {
        return new OpenAiCompatibleExecutor(http, codec, extraHeaders, true, chatBody, perRequest);
    }

    @Override
    public boolean supportsPassthrough(String dialect) {
        return responsesByDefault && PassthroughCall.OPENAI_RESPONSES.equals(dialect);
    }

    @Override
    public boolean supportsPassthrough(String dialect, UpstreamTarget target) {
        if (!PassthroughCall.OPENAI_RESPONSES.equals(dialect)) {
            return false;
        }
        return target.providerSpecificData().get(RESPONSES_API) instanceof Boolean b ? b : responsesByDefault;
    }

    /** Sends a Responses request as the client wrote it ({@code POST {baseUrl}/responses}). */
    @Override
    public PassthroughOutcome passthrough(PassthroughCall call) {
        if (!PassthroughCall.OPENAI_RESPONSES.equals(call.dialect())) {
            throw new IllegalStateException("the OpenAI-compatible executor does not pass " + call.dialect() + " requests through");
        }
        UpstreamCallInfo info = perRequest == null ? null
                : new UpstreamCallInfo(UpstreamCallInfo.PASSTHROUGH, null, call.stream(), call.requestId());
        UpstreamRequest request = new UpstreamRequest("POST", endpoint(call.target(), "/responses", info),
                headers(call.target(), call.stream(), info), call.body(), call.timeout());
        UpstreamResponse response;
        try {
            response = call.target().httpOr(http).send(request);
        } catch (IOException e) {
            return new PassthroughOutcome.Failed(TransportError.of(e));
        }
        if (response.head().status() < 200 || response.head().status() > 299) {
            return new PassthroughOutcome.Failed(readError(response));
        }
        return new PassthroughOutcome.Accepted(response);
    }

    @Override
    public ChatOutcome chat(ChatCall call) {
        boolean stream = call.request().stream();
        UpstreamCallInfo info = perRequest == null ? null
                : new UpstreamCallInfo(UpstreamCallInfo.CHAT, call.request().model(), stream, call.requestId());
        UpstreamRequest request = new UpstreamRequest("POST", endpoint(call.target(), "/chat/completions", info),
                headers(call.target(), stream, info), chatBody(call), call.timeout());
        UpstreamResponse response;
        try {
            response = call.target().httpOr(http).send(request);
        } catch (IOException e) {
            return new ChatOutcome.Failed(TransportError.of(e));
        }
        ResponseHead head = response.head();
        if (head.status() < 200 || head.status() > 299) {
            return new ChatOutcome.Failed(readError(response));
        }
        if (stream && !head.first("content-type").map(t -> t.contains("json")).orElse(false)) {
            return new ChatOutcome.Streaming(new SseChunkStream(response, codec), head);
        }
        if (stream) {
            // the upstream ignored "stream": true and answered one JSON completion: stream it as chunks
            try (response) {
                return new ChatOutcome.Streaming(CompletionChunks.of(codec.readChatResponse(readAnswer(response))), head);
            } catch (IOException e) {
                return new ChatOutcome.Failed(TransportError.of(e));
            } catch (InvalidRequestException e) {
                return new ChatOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL,
                        "upstream answered " + head.status() + " with a body that is not a chat completion: " + e.getMessage()));
            }
        }
        try (response) {
            byte[] body = readAnswer(response);
            // read for usage and the classifier; an OpenAI client gets the upstream's bytes (issue 26)
            return new ChatOutcome.Completed(codec.readChatResponse(body), head, body);
        } catch (IOException e) {
            return new ChatOutcome.Failed(TransportError.of(e));
        } catch (InvalidRequestException e) {
            return new ChatOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL,
                    "upstream answered " + head.status() + " with a body that is not a chat completion: " + e.getMessage()));
        }
    }

    @Override
    public boolean supportsEmbeddings() {
        return true;
    }

    @Override
    public EmbeddingOutcome embed(EmbeddingCall call) {
        UpstreamCallInfo info = perRequest == null ? null
                : new UpstreamCallInfo(UpstreamCallInfo.EMBEDDINGS, call.request().model(), false, call.requestId());
        UpstreamRequest request = new UpstreamRequest("POST", endpoint(call.target(), "/embeddings", info),
                headers(call.target(), false, info), codec.writeEmbeddingRequest(call.request()), call.timeout());
        UpstreamResponse response;
        try {
            response = call.target().httpOr(http).send(request);
        } catch (IOException e) {
            return new EmbeddingOutcome.Failed(TransportError.of(e));
        }
        ResponseHead head = response.head();
        if (head.status() < 200 || head.status() > 299) {
            return new EmbeddingOutcome.Failed(readError(response));
        }
        try (response) {
            byte[] body = readAnswer(response);
            var tree = codec.mapper().readTree(body);
            if (tree == null || !tree.isObject() || !tree.path("data").isArray()) {
                return new EmbeddingOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL,
                        "upstream answered " + head.status() + " with a body that is not an embeddings list"));
            }
            return new EmbeddingOutcome.Completed(new String(body, StandardCharsets.UTF_8), head);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return new EmbeddingOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL,
                    "upstream answered " + head.status() + " with a body that is not JSON"));
        } catch (IOException e) {
            return new EmbeddingOutcome.Failed(TransportError.of(e));
        }
    }

    /**
     * A copy that also sends fixed headers (e.g. a provider's required client identification).
     * Credentials still come only from the connection.
     *
     * @param headers header name to value
     * @return the copy
     */
    public OpenAiCompatibleExecutor withHeaders(Map<String, String> headers) {
        Map<String, String> all = new HashMap<>(extraHeaders);
        all.putAll(headers);
        return new OpenAiCompatibleExecutor(http, codec, all, responsesByDefault, chatBody, perRequest);
    }

    /**
     * A copy adjusted by a plugin (issue 17): its headers added (a header the plugin names
     * replaces one of the same name in any case), its chat-body rewrite applied after earlier ones.
     *
     * @param customizer the plugin's adjustments
     * @return the copy, or this executor when the customizer changes nothing
     */
    public OpenAiCompatibleExecutor customized(ExecutorCustomizer customizer) {
        if (customizer.isEmpty()) {
            return this;
        }
        Map<String, String> all = new HashMap<>();
        extraHeaders.forEach((n, v) -> {
            if (customizer.headers().keySet().stream().noneMatch(n::equalsIgnoreCase)) {
                all.put(n, v);
            }
        });
        all.putAll(customizer.headers());
        UnaryOperator<String> tweak = customizer.chatBody();
        // the identity when the customizer has no rewrite: keep "no rewrite" as null so no copy of the body is made
        UnaryOperator<String> combined = tweak == UnaryOperator.<String>identity() ? chatBody
                : chatBody == null ? tweak : json -> tweak.apply(chatBody.apply(json));
        return new OpenAiCompatibleExecutor(http, codec, all, responsesByDefault, combined,
                PerRequestValues.of(perRequest, customizer));
    }

    /** The chat body to send: the codec's, rewritten by a plugin's customizer when there is one. */
    private byte[] chatBody(ChatCall call) {
        byte[] body = codec.writeChatRequest(call.request());
        if (chatBody == null) {
            return body;
        }
        String rewritten = chatBody.apply(new String(body, StandardCharsets.UTF_8));
        if (rewritten == null) {
            throw new IllegalStateException("a plugin's chat-body rewrite returned null");
        }
        return rewritten.getBytes(StandardCharsets.UTF_8);
    }

    private UpstreamFailure readError(UpstreamResponse response) {
        int status = response.head().status();
        if (status < 400) {
            // redirects are not followed and 1xx/3xx are no answer: the gateway's own 502, not a 3xx to the client
            response.close();
            return new TransportError(TransportErrorKind.PROTOCOL, "upstream answered HTTP " + status
                    + response.head().first("location").map(l -> " (Location: " + l + ")").orElse("") + " instead of an answer");
        }
        try (response) {
            return codec.readError(response.head(), response.bodyText(MAX_ERROR_BODY));
        } catch (IOException e) {
            return codec.readError(response.head(), "");
        }
    }

    /** A whole answer, bounded in size (and, by the upstream client, in time from its headers). */
    private static byte[] readAnswer(UpstreamResponse response) throws IOException {
        return response.wholeBody();
    }

    private URI endpoint(UpstreamTarget target, String path, UpstreamCallInfo info) {
        URI uri = endpoints.of(target.baseUrl(), path);
        return perRequest == null ? uri : perRequest.endpoint(uri, target, info);
    }

    private Map<String, String> headers(UpstreamTarget target, boolean stream, UpstreamCallInfo info) {
        Map<String, String> h = new HashMap<>(8);
        h.putAll(extraHeaders);
        h.put("Content-Type", "application/json");
        h.put("Accept", stream ? "text/event-stream" : "application/json");
        // no User-Agent of Sluice's own (issue 32): a plugin that must identify itself sets one (ExecutorCustomizer.withHeader)
        String token = target.credentials().bearerToken();
        if (token != null && !token.isEmpty()) {
            h.put("Authorization", "Bearer " + token);
        }
        if (perRequest != null) {
            perRequest.addHeaders(h, target, info);
        }
        return h;
    }
}
