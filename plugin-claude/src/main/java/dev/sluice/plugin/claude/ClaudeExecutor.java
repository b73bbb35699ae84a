package dev.sluice.plugin.claude;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;

/**
 * Calls the Anthropic Messages API ({@code POST {baseUrl}/v1/messages}) for one attempt: the
 * canonical request is translated by {@link MessagesRequestWriter}, the headers are built from
 * scratch by {@link AnthropicHeaders}, and the answer comes back through
 * {@link MessagesResponseReader} or, streamed, {@link MessagesChunkStream}. Failures are values,
 * never exceptions. Thread-safe: no per-request state in fields.
 */
final class ClaudeExecutor implements ProviderExecutor {

    /** The Messages endpoint, appended to the host-root base URL (SPEC DM-1b). */
    static final String MESSAGES_PATH = "/v1/messages";
    /** Error bodies are read up to this size. */
    static final int MAX_ERROR_BODY = 64 * 1024;
    /** Complete answers are read up to this size. */
    static final int MAX_ANSWER_BODY = 64 * 1024 * 1024;

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final AnthropicHeaders headers;
    private final MessagesRequestWriter writer;
    private final MessagesResponseReader reader;

    ClaudeExecutor(UpstreamHttp http, InstantSource clock, AnthropicHeaders headers, MessagesRequestWriter writer) {
        this.http = http;
        this.clock = clock;
        this.headers = headers;
        this.writer = writer;
        this.reader = new MessagesResponseReader(clock);
    }

    @Override
    public ChatOutcome chat(ChatCall call) {
        boolean stream = call.request().stream();
        URI uri;
        try {
            uri = endpoint(call.target().baseUrl());
        } catch (IllegalArgumentException e) {
            return new ChatOutcome.Failed(new TransportError(TransportErrorKind.OTHER,
                    "the connection's base URL is not a valid URL: " + e.getMessage()));
        }
        UpstreamRequest request = new UpstreamRequest("POST", uri,
                headers.build(call.target(), stream, call.clientHeaders()), writer.write(call.request()), call.timeout());
        UpstreamResponse response;
        try {
            response = http.send(request);
        } catch (IOException e) {
            return new ChatOutcome.Failed(TransportError.of(e));
        }
        ResponseHead head = response.head();
        if (head.status() < 200 || head.status() > 299) {
            return new ChatOutcome.Failed(readError(response));
        }
        if (stream) {
            return new ChatOutcome.Streaming(new MessagesChunkStream(response, new StreamTranslator(clock.instant().getEpochSecond())), head);
        }
        try (response) {
            String body = readAnswer(response.body());
            return new ChatOutcome.Completed(reader.read(body), head);
        } catch (IOException e) {
            return new ChatOutcome.Failed(TransportError.of(e));
        } catch (MalformedAnswerException e) {
            return new ChatOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL,
                    "upstream answered " + head.status() + " with a body that is not a Messages answer: " + e.getMessage()));
        }
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

    /** Reads the whole answer (to the end, so the connection can be pooled), bounded. */
    private static String readAnswer(InputStream body) throws IOException {
        byte[] bytes = body.readNBytes(MAX_ANSWER_BODY + 1);
        if (bytes.length > MAX_ANSWER_BODY) {
            throw new IOException("upstream answer exceeds " + MAX_ANSWER_BODY + " bytes");
        }
        return new String(bytes, StandardCharsets.UTF_8);
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
