package dev.sluice.testkit;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One scripted answer of a {@link MockUpstream}. Instances are immutable and may be enqueued any
 * number of times; bodies that depend on the request (for example the echoed {@code model}) are
 * computed per request.
 *
 * <p>Fixed responses carry {@code Content-Length}; streams ({@link #sse}, {@link #chatStream}, {@link #stream()}) use
 * {@code Transfer-Encoding: chunked} so the connection stays usable afterwards.
 */
public final class MockResponse {

    /** What the connection does with this response. */
    enum Action { RESPOND, RESET, RESET_AFTER_HEADERS, HANG, SCRIPT, CHOOSE }

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
    /** The scripted stream of {@link Action#SCRIPT}; null otherwise. */
    final StreamScript script;
    /** Picks the answer per request for {@link Action#CHOOSE}; null otherwise. */
    final Function<RecordedRequest, MockResponse> chooser;

    private MockResponse(Action action, int status, String contentType, List<String[]> headers,
            Function<RecordedRequest, String> body, Function<RecordedRequest, List<String>> events,
            Duration eventDelay, Duration delay, StreamScript script) {
        this(action, status, contentType, headers, body, events, eventDelay, delay, script, null);
    }

    private MockResponse(Action action, int status, String contentType, List<String[]> headers,
            Function<RecordedRequest, String> body, Function<RecordedRequest, List<String>> events,
            Duration eventDelay, Duration delay, StreamScript script, Function<RecordedRequest, MockResponse> chooser) {
        this.chooser = chooser;
        this.action = action;
        this.status = status;
        this.contentType = contentType;
        this.headers = headers;
        this.body = body;
        this.events = events;
        this.eventDelay = eventDelay;
        this.delay = delay;
        this.script = script;
    }

    private static MockResponse fixed(int status, String contentType, Function<RecordedRequest, String> body) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("status must be a 3-digit HTTP status: " + status);
        }
        return new MockResponse(Action.RESPOND, status, contentType, List.of(), body, null, Duration.ZERO, Duration.ZERO, null);
    }

    private static MockResponse events(Action action, Function<RecordedRequest, List<String>> events, Duration between) {
        requireNonNull(between, "delayBetween is null");
        if (between.isNegative()) {
            throw new IllegalArgumentException("delayBetween is negative: " + between);
        }
        return new MockResponse(action, 200, "text/event-stream", List.of(), null, events, between, Duration.ZERO, null);
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
     * An answer that depends on the request: the chooser picks one response per request (for
     * example by its {@code Authorization} header), which is then sent as if it had been enqueued.
     *
     * @param chooser picks the answer; it must not return null
     * @return the response
     */
    public static MockResponse choosing(Function<RecordedRequest, MockResponse> chooser) {
        requireNonNull(chooser, "chooser is null");
        return new MockResponse(Action.CHOOSE, 200, JSON, List.of(), null, null, Duration.ZERO, Duration.ZERO, null, chooser);
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
        return events(Action.RESPOND, r -> payloads, delayBetween);
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
        return events(Action.RESPOND, r -> OpenAiJson.chatChunks(OpenAiJson.model(r.body()), pieces), delayBetween);
    }

    /**
     * After reading the request, aborts the connection with a TCP RST and sends nothing.
     *
     * @return the response
     */
    public static MockResponse reset() {
        return new MockResponse(Action.RESET, 0, null, List.of(), null, null, Duration.ZERO, Duration.ZERO, null);
    }

    /**
     * Sends the 200 headers of an SSE stream and one chat chunk (role assistant, content
     * {@code "partial"}), then aborts the connection with a TCP RST: a mid-stream failure.
     *
     * @return the response
     */
    public static MockResponse resetAfterHeaders() {
        return events(Action.RESET_AFTER_HEADERS,
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
                then.eventDelay, then.delay.plus(delay), then.script, then.chooser);
    }

    /**
     * Never answers; the connection is released when the client closes it (see
     * {@link MockUpstream#awaitClientGone}) or by {@link MockUpstream#close()}. For timeout tests.
     *
     * @return the response
     */
    public static MockResponse hang() {
        return new MockResponse(Action.HANG, 0, null, List.of(), null, null, Duration.ZERO, Duration.ZERO, null);
    }

    /**
     * Starts a scripted {@code text/event-stream} (status 200, chunked): a sequence of raw SSE
     * writes and pauses played with exact timing, then an ending. Use it for the stream shapes a
     * gateway's watchdogs must survive: keep-alives only, early EOF, stalls, heartbeats without
     * content, reasoning pauses, trickles.
     *
     * <pre>{@code
     * // one content delta, then silence with the connection held open: a stall
     * upstream.enqueue(MockResponse.stream()
     *         .event(SseEvents.openAiDelta("Hel"))
     *         .thenHold());
     * }</pre>
     *
     * @return a new builder; its {@code then...} methods return the response
     */
    public static StreamBuilder stream() {
        return new StreamBuilder();
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
        return new MockResponse(action, status, contentType, List.copyOf(more), body, events, eventDelay, delay, script, chooser);
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

    /**
     * Builds a scripted stream, step by step; see {@link MockResponse#stream()}. Each
     * {@link #event} is written as one HTTP chunk and flushed on its own, so the client sees it at
     * the moment the script reaches it; {@link #pause}s wait on the wall clock, ending early when the
     * client leaves or the mock closes. A {@code then...} method ends the script and returns the
     * response; the builder may be used again afterwards. Not thread-safe.
     */
    public static final class StreamBuilder {

        private final List<StreamScript.Step> steps = new ArrayList<>();

        private StreamBuilder() {
        }

        /**
         * Writes this text verbatim, as UTF-8, in one chunk. It is usually a whole frame from
         * {@link SseEvents}, but may be anything, a partial frame included.
         *
         * @param sseText the text, e.g. {@code SseEvents.openAiDelta("Hi")}
         * @return this builder
         * @throws IllegalArgumentException if the text is empty (an empty chunk would end the body)
         */
        public StreamBuilder event(String sseText) {
            steps.add(new StreamScript.Step.Write(bytes(sseText)));
            return this;
        }

        /**
         * Writes a comment frame, {@code : <text>} and a blank line; same as
         * {@code event(SseEvents.comment(text))}.
         *
         * @param text the comment, e.g. {@code keep-alive}
         * @return this builder
         */
        public StreamBuilder comment(String text) {
            return event(SseEvents.comment(text));
        }

        /**
         * Waits before the next step.
         *
         * @param duration how long; zero is allowed
         * @return this builder
         */
        public StreamBuilder pause(Duration duration) {
            steps.add(new StreamScript.Step.Pause(nonNegative(duration, "duration")));
            return this;
        }

        /**
         * Waits {@code interval}, then writes {@code sseText}, {@code times} times over: a trickle
         * or a run of heartbeats.
         *
         * @param times how many writes, at least 1
         * @param interval the wait before each write
         * @param sseText the text of each write, as for {@link #event}
         * @return this builder
         */
        public StreamBuilder repeat(int times, Duration interval, String sseText) {
            if (times < 1) {
                throw new IllegalArgumentException("times must be at least 1: " + times);
            }
            StreamScript.Step pause = new StreamScript.Step.Pause(nonNegative(interval, "interval"));
            StreamScript.Step write = new StreamScript.Step.Write(bytes(sseText));
            for (int i = 0; i < times; i++) {
                steps.add(pause);
                steps.add(write);
            }
            return this;
        }

        /**
         * Ends the body properly (the terminating chunk) after the steps; the connection stays
         * usable. Without {@code [DONE]} or {@code message_stop} among the steps, this is the
         * clean early EOF an SSE client sees when an upstream gives up.
         *
         * @return the response
         */
        public MockResponse thenEnd() {
            return build(StreamScript.Ending.END, null, null);
        }

        /**
         * Closes the connection (TCP FIN) after the steps, without the terminating chunk: the
         * client sees the body cut short.
         *
         * @return the response
         */
        public MockResponse thenClose() {
            return build(StreamScript.Ending.CLOSE, null, null);
        }

        /**
         * Aborts the connection with a TCP RST right after the steps. As on a real network, the
         * reset may discard bytes the client has not read yet: end the steps with a short
         * {@link #pause} if the client must see them.
         *
         * @return the response
         */
        public MockResponse thenReset() {
            return build(StreamScript.Ending.RESET, null, null);
        }

        /**
         * After the steps, sends nothing more and never ends the body. The connection is released
         * when the client closes it (see {@link MockUpstream#awaitClientGone}) or by
         * {@link MockUpstream#close()}.
         *
         * @return the response
         */
        public MockResponse thenHold() {
            return build(StreamScript.Ending.HOLD, null, null);
        }

        /**
         * After the steps, waits {@code interval} then writes {@code sseText}, over and over, and
         * never ends the body: keep-alives or pings forever, or an endless trickle. Released like
         * {@link #thenHold()}.
         *
         * @param interval the wait before each write; positive
         * @param sseText the text of each write, as for {@link #event}
         * @return the response
         */
        public MockResponse thenRepeat(Duration interval, String sseText) {
            if (!nonNegative(interval, "interval").isPositive()) {
                throw new IllegalArgumentException("interval must be positive: " + interval);
            }
            return build(StreamScript.Ending.HOLD, bytes(sseText), interval);
        }

        private MockResponse build(StreamScript.Ending ending, byte[] heartbeat, Duration interval) {
            StreamScript script = new StreamScript(steps, ending, heartbeat, interval);
            return new MockResponse(Action.SCRIPT, 200, "text/event-stream", List.of(), null, null, Duration.ZERO,
                    Duration.ZERO, script);
        }

        private static byte[] bytes(String sseText) {
            requireNonNull(sseText, "sseText is null");
            if (sseText.isEmpty()) {
                throw new IllegalArgumentException("sseText is empty: an empty chunk would end the body");
            }
            return sseText.getBytes(StandardCharsets.UTF_8);
        }

        private static Duration nonNegative(Duration d, String name) {
            requireNonNull(d, name + " is null");
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " is negative: " + d);
            }
            return d;
        }
    }
}

