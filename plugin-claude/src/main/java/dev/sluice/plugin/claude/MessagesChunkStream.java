package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;
import dev.sluice.toolkit.sse.SseEventReader;

import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * An Anthropic Messages stream read event by event and translated as it arrives: each
 * {@link #next()} blocks only until the next event that has something for the client, and nothing
 * is buffered beyond one event. The stream ends normally only with {@code message_stop}; a body
 * that ends before it is an {@link IOException}, as is an {@code error} event.
 */
final class MessagesChunkStream implements ChunkStream {

    /** After {@code message_stop}, at most this much of the body is read to reach its end. */
    static final int MAX_DRAIN = 64 * 1024;

    private final UpstreamResponse response;
    private final SseEventReader events;
    private final StreamTranslator translator;
    private boolean done;
    private boolean completed;
    private boolean closed;

    MessagesChunkStream(UpstreamResponse response, StreamTranslator translator) {
        this.response = response;
        this.events = new SseEventReader(response.body(), response.maxEventBytes());
        this.translator = translator;
    }

    @Override
    public StreamChunk next() throws IOException {
        while (!done) {
            SseEventReader.Event event;
            try {
                event = events.next();
            } catch (IOException e) {
                done = true;
                throw e;
            }
            if (event == null) {
                done = true;
                throw new java.io.EOFException("the upstream closed the stream before it finished (no message_stop)");
            }
            if (event.data().isBlank()) {
                continue;
            }
            Map<String, Object> data;
            try {
                data = Json.parseObject(event.data());
            } catch (JsonException e) {
                done = true;
                throw new IOException("upstream sent an unreadable stream event" + (event.name() == null ? "" : " '" + event.name() + "'")
                        + ": " + e.getMessage());
            }
            StreamChunk chunk;
            try {
                chunk = translator.onEvent(event.name(), data);
            } catch (IOException e) {
                done = true;
                throw e;
            }
            if (translator.stopped()) {
                done = true;
                completed = true;
                return null;
            }
            if (chunk != null) {
                return chunk;
            }
        }
        return null;
    }

    /**
     * After a complete stream the rest of the body (normally just the chunked terminator) is read,
     * so the upstream connection goes back to the keep-alive pool instead of being closed. An
     * abandoned or failed stream is not drained: its connection is discarded.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        done = true;
        if (completed) {
            try {
                InputStream body = response.body();
                byte[] sink = new byte[1024];
                long skipped = 0;
                int n;
                while (skipped < MAX_DRAIN && (n = body.read(sink)) >= 0) {
                    skipped += n;
                }
            } catch (IOException ignored) {
                // the connection is discarded by close() below
            }
        }
        response.close();
    }
}
