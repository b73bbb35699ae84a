package dev.sluice.testkit;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One scripted answer of a {@link MockUpstream}. Instances are immutable and may be enqueued any
 * number of times; bodies that depend on the request (for example the echoed {@code model}) are
 * computed per request.
 *
 * <p>Fixed responses carry {@code Content-Length}; streams ({@link #sse}, {@link #chatStream}) use
 * {@code Transfer-Encoding: chunked} so the connection stays usable afterwards.
 */
public final class MockResponse {

    /** What the connection does with this response. */
    enum Action { RESPOND, RESET, RESET_AFTER_HEADERS, HANG }

    private static final String JSON = "application/json";
    private static final MockResponse ECHO = fixed(200, JSON, r -> {
        String last = OpenAiJson.lastContent(r.body());
        return OpenAiJson.completion(OpenAiJson.model(r.body()),
                last == null ? OpenAiJson.FALLBACK_CONTENT : "echo: " + last);
    });

    final Action action;
    final int status;
    final String contentType;
    /** Extra headers as name/value pairs, in the order added. */
    final List<String[]> headers;
    /** Fixed body for the request; null for streams and failures. */
    final Function<RecordedRequest, String> body;
    /** SSE data payloads for the request; null for fixed bodies. */
    final Function<RecordedRequest, List<String>> events;
    final Duration eventDelay;
    /** How long to wait before answering at all. */
    final Duration delay;

    private MockResponse(Action action, int status, String contentType, List<String[]> headers,
            Function<RecordedRequest, String> body, Function<RecordedRequest, List<String>> events,
            Duration eventDelay, Duration delay) {
        this.action = action;
        this.status = status;
        this.contentType = contentType;
        this.headers = headers;
        this.body = body;
        this.events = events;
        this.eventDelay = eventDelay;
        this.delay = delay;
    }

    private static MockResponse fixed(int status, String contentType, Function<RecordedRequest, String> body) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must be a 3-digit HTTP status: " + status);
        }
        return new MockResponse(Action.RESPOND, status, contentType, List.of(), body, null, Duration.ZERO, Duration.ZERO);
    }

    private static MockResponse stream(Action action, Function<RecordedRequest, List<String>> events, Duration between) {
        requireNonNull(between, "delayBetween is null");
        if (between.isNegative()) {
            throw new IllegalArgumentException("delayBetween is negative: " + between);
        }
        return new MockResponse(action, 200, "text/event-stream", List.of(), null, events, between, Duration.ZERO);
    }

    /**
     * A JSON answer with {@code Content-Type: application/json} and {@code Content-Length}.
     *
     * @param status the HTTP status
     * @param body the body, sent as UTF-8
     * @return the response
     */
    public static MockResponse json(int status, String body) {
        requireNonNull(body, "body is null");
        return fixed(status, JSON, r -> body);
    }

    /**
     * An answer with any status, typically an error; identical to {@link #json(int, String)}.
     *
     * @param status the HTTP status, e.g. 429 or 503
     * @param body the body, sent as UTF-8 with {@code Content-Type: application/json}
     * @return the response
     */
    public static MockResponse status(int status, String body) {
        return json(status, body);
    }

    /**
     * A valid OpenAI {@code chat.completion} with one choice: an assistant message with this
     * content, {@code finish_reason "stop"} and usage 3 + 5 = 8 tokens. Its {@code model} is the
     * request's {@code "model"} if present, else {@code "mock-model"}.
     *
     * @param content the assistant message
     * @return the response
     */
    public static MockResponse completion(String content) {
        String quoted = OpenAiJson.quote(requireNonNull(content, "content is null"));
        String escaped = quoted.substring(1, quoted.length() - 1);
        return fixed(200, JSON, r -> OpenAiJson.completion(OpenAiJson.model(r.body()), escaped));
    }

    /**
     * Like {@link #completion(String)}, with content {@code "echo: "} + the last {@code "content"}
     * string of the request body, or {@code "Hello from mock"} when there is none. The initial
     * default of every {@link MockUpstream}.
     *
     * @return the response (a shared instance)
     */
    public static MockResponse echoCompletion() {
        return ECHO;
    }

    /**
     * A valid OpenAI embeddings list with one 3-dimensional vector; {@code model} as in
     * {@link #completion(String)}.
     *
     * @return the response
     */
    public static MockResponse embeddings() {
        return fixed(200, JSON, r -> OpenAiJson.embeddings(OpenAiJson.model(r.body())));
    }

    /**
     * A {@code text/event-stream}: each payload is written as {@code data: <payload>\n\n} and
     * flushed, with {@code delayBetween} between events. Include {@code "[DONE]"} if wanted.
     *
     * @param dataPayloads the event payloads, in order
     * @param delayBetween the pause between two events (zero for none)
     * @return the response
     */
    public static MockResponse sse(List<String> dataPayloads, Duration delayBetween) {
        List<String> payloads = List.copyOf(dataPayloads);
        return stream(Action.RESPOND, r -> payloads, delayBetween);
    }

    /**
     * An OpenAI {@code chat.completion.chunk} stream: a chunk with {@code delta.role = assistant},
     * one chunk per piece with {@code delta.content}, a chunk with {@code finish_reason "stop"} and
     * usage (3 + 5 = 8), then {@code data: [DONE]}. Every chunk has id {@code chatcmpl-mock} and
     * the request's model.
     *
     * @param contentPieces the content deltas, in order
     * @param delayBetween the pause between two events (zero for none)
     * @return the response
     */
    public static MockResponse chatStream(List<String> contentPieces, Duration delayBetween) {
        List<String> pieces = List.copyOf(contentPieces);
        return stream(Action.RESPOND, r -> OpenAiJson.chatChunks(OpenAiJson.model(r.body()), pieces), delayBetween);
    }

    /**
     * After reading the request, aborts the connection with a TCP RST and sends nothing.
     *
     * @return the response
     */
    public static MockResponse reset() {
        return new MockResponse(Action.RESET, 0, null, List.of(), null, null, Duration.ZERO, Duration.ZERO);
    }

    /**
     * Sends the 200 headers of an SSE stream and one chat chunk (role assistant, content
     * {@code "partial"}), then aborts the connection with a TCP RST: a mid-stream failure.
     *
     * @return the response
     */
    public static MockResponse resetAfterHeaders() {
        return stream(Action.RESET_AFTER_HEADERS,
                r -> List.of(OpenAiJson.firstChunk(OpenAiJson.model(r.body()), "partial")), Duration.ZERO);
    }

    /**
     * Waits before answering with {@code then}; delays add up when nested. The wait ends early,
     * without an answer, when the upstream is closed.
     *
     * @param delay how long to wait
     * @param then the answer after the wait
     * @return the response
     */
    public static MockResponse delayed(Duration delay, MockResponse then) {
        requireNonNull(delay, "delay is null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay is negative: " + delay);
        }
        return new MockResponse(then.action, then.status, then.contentType, then.headers, then.body, then.events,
                then.eventDelay, then.delay.plus(delay));
    }

    /**
     * Never answers; the connection is released by {@link MockUpstream#close()}. For timeout tests.
     *
     * @return the response
     */
    public static MockResponse hang() {
        return new MockResponse(Action.HANG, 0, null, List.of(), null, null, Duration.ZERO, Duration.ZERO);
    }

    /**
     * Adds a response header. A {@code Content-Type} given here replaces the default one; a
     * {@code Connection: close} makes the server close the connection after this response.
     *
     * @param name the header name
     * @param value the header value
     * @return a <b>new</b> instance with the header added; this one is unchanged
     */
    public MockResponse header(String name, String value) {
        requireNonNull(name, "name is null");
        requireNonNull(value, "value is null");
        if (name.isBlank() || (name + value).indexOf('\r') >= 0 || (name + value).indexOf('\n') >= 0) {
            throw new IllegalArgumentException("invalid header: " + name);
        }
        List<String[]> more = new ArrayList<>(headers);
        more.add(new String[] {name, value});
        return new MockResponse(action, status, contentType, List.copyOf(more), body, events, eventDelay, delay);
    }

    /** Whether an added header has this (lower-case) name and, if {@code value} is non-null, value. */
    boolean hasHeader(String lowerName, String value) {
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase(lowerName) && (value == null || h[1].equalsIgnoreCase(value))) {
                return true;
            }
        }
        return false;
    }
}
