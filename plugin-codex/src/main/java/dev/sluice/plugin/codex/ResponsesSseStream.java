package dev.sluice.plugin.codex;

import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;
import dev.sluice.toolkit.sse.SseEventReader;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * Reads the backend's Responses event stream event by event and hands each event to a
 * {@link ResponsesEvents}. {@link #next()} blocks only until the next event arrived, and holds at
 * most one event in memory. The stream ends with {@code response.completed}; an end of the body
 * before it is a truncated stream, an {@link IOException}.
 */
final class ResponsesSseStream implements ChunkStream {

    /** How much of a finished stream's tail close() reads so the connection can be reused. */
    private static final int MAX_DRAIN = 64 * 1024;

    private final UpstreamResponse response;
    private final SseEventReader reader;
    private final ResponsesEvents events;
    private final Deque<StreamChunk> pending = new ArrayDeque<>();
    private boolean done;
    private boolean atEof;
    private boolean closed;

    ResponsesSseStream(UpstreamResponse response, ResponsesEvents events) {
        this.response = response;
        this.reader = new SseEventReader(response.body(), response.maxEventBytes());
        this.events = events;
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
            if (events.finished()) {
                done = true;
                return null;
            }
            SseEventReader.Event event;
            try {
                event = reader.next();
            } catch (IOException e) {
                done = true;
                throw e;
            }
            if (event == null) {
                atEof = true;
                done = true;
                throw new IOException("the upstream closed the stream before response.completed");
            }
            String data = event.data();
            if (data.isBlank() || "[DONE]".equals(data.strip())) {
                continue;
            }
            Map<String, Object> parsed;
            try {
                parsed = Json.parseObject(data);
            } catch (JsonException e) {
                done = true;
                throw new IOException("upstream sent an unreadable stream event: " + e.getMessage());
            }
            try {
                pending.addAll(events.feed(parsed));
            } catch (IOException e) {
                done = true;
                throw e;
            }
        }
    }

    /**
     * A finished stream is read to its end first (usually only the chunked terminator is left), so
     * the keep-alive connection goes back to the pool; an unfinished one is not drained. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (events.finished() && !atEof) {
            try {
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
