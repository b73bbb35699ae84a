package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;
import dev.sluice.toolkit.sse.SseEventReader;

import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Reads a Gemini {@code alt=sse} stream event by event and hands each event to a
 * {@link StreamTranslator}. {@link #next()} blocks only until the next event arrived (the reader
 * returns whatever the upstream sent; nothing waits for a full buffer), and at most one event is
 * held in memory. Gemini has no {@code [DONE]} marker: the stream ends at EOF, and an EOF before
 * every candidate reported a finish reason is a truncated stream, an {@link IOException}.
 */
final class GeminiSseStream implements ChunkStream {

    /**
     * Largest single event accepted (one fragment; Gemini's are small, a big function call is the
     * largest): the gateway's limit per server-sent event, {@link SseEventReader#MAX_EVENT_CHARS}.
     */
    static final int MAX_EVENT_CHARS = SseEventReader.MAX_EVENT_CHARS;
    /** How much of a finished stream's tail close() reads so the connection can be reused. */
    private static final int MAX_DRAIN = 64 * 1024;

    private final UpstreamResponse response;
    private final SseEventReader reader;
    private final StreamTranslator translator;
    private final boolean envelope;
    private final Deque<StreamChunk> pending = new ArrayDeque<>();
    private boolean done;
    private boolean atEof;
    private boolean closed;

    /**
     * Wraps an accepted stream.
     *
     * @param response the upstream response (2xx); closed by {@link #close()}
     * @param translator the translator for this stream
     */
    GeminiSseStream(UpstreamResponse response, StreamTranslator translator) {
        this(response, translator, false);
    }

    /**
     * Wraps an accepted stream whose events may be Code Assist envelopes (issue 36).
     *
     * @param response the upstream response (2xx); closed by {@link #close()}
     * @param translator the translator for this stream
     * @param envelope whether each event is {@code {"response": {...}}}: the inner response is
     *     translated, an event without one (credits only) is skipped
     */
    GeminiSseStream(UpstreamResponse response, StreamTranslator translator, boolean envelope) {
        this.envelope = envelope;
        this.response = response;
        this.reader = new SseEventReader(response.body(), response.maxEventBytes());
        this.translator = translator;
    }

    @Override
    public StreamChunk next() throws IOException {
        while (true) {
            StreamChunk chunk = pending.poll();
            if (chunk != null) {
                return chunk;
            }
            if (done) {
                return null;
            }
            String data;
            try {
                data = nextData();
            } catch (IOException e) {
                done = true;
                throw e;
            }
            if (data == null) {
                done = true;
                if (!translator.finished()) {
                    throw new IOException("the upstream closed the stream before it finished (no finishReason)");
                }
                return null;
            }
            if (data.isBlank()) {
                continue;
            }
            Map<String, Object> fragment;
            try {
                fragment = Json.parseObject(data);
            } catch (JsonException e) {
                done = true;
                throw new IOException("upstream sent an unreadable stream event: " + e.getMessage());
            }
            if (envelope && !fragment.containsKey("error") && (fragment = CodeAssist.unwrap(fragment)) == null) {
                continue; // an event with credits only
            }
            try {
                pending.addAll(translator.feed(fragment));
            } catch (IOException e) {
                done = true;
                throw e;
            }
        }
    }

    /** The data of the next event (multi-line data joined by newlines), or null at end of stream. */
    private String nextData() throws IOException {
        // event:, id: and retry: carry nothing Gemini uses
        SseEventReader.Event event = reader.next();
        if (event == null) {
            atEof = true;
            return null;
        }
        return event.data();
    }

    /**
     * A finished stream is read to its end first (normally only the chunked terminator is left),
     * so the keep-alive connection goes back to the pool instead of being closed; an unfinished
     * (abandoned or failed) stream is not drained. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (translator.finished() && !atEof) {
            try {
                // what the line reader buffered is already consumed; the rest is read from the body
                byte[] sink = new byte[1024];
                long skipped = 0;
                int n;
                while (skipped < MAX_DRAIN && (n = response.body().read(sink)) >= 0) {
                    skipped += n;
                }
            } catch (IOException ignored) {
                // the connection is discarded by close() below
            }
        }
        done = true;
        pending.clear();
        response.close();
    }
}
