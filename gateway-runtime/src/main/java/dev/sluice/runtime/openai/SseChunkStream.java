package dev.sluice.runtime.openai;

import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.toolkit.sse.SseLineReader;
import java.io.IOException;

/**
 * Reads an OpenAI SSE stream event by event. Each {@link #next()} blocks only until the next
 * complete event arrived (the reader returns whatever the upstream sent, it does not wait for a
 * full buffer). An event longer than {@link SseLineReader#MAX_EVENT_CHARS} fails the stream as
 * the upstream's protocol error instead of filling the heap.
 */
final class SseChunkStream implements ChunkStream {

    private final UpstreamResponse response;
    private final SseLineReader reader;
    private final OpenAiCodec codec;
    private boolean done;
    /** Identity marker for a comment line (compared with ==, never equal to real data). */
    private static final String HEARTBEAT = new String(":");
    private String lastId = "";
    private String lastModel = "";
    private boolean finished;
    /** The stream reached [DONE] or its end: its rest may be drained so the connection is pooled. */
    private boolean completed;
    private static final int MAX_DRAIN = 64 * 1024;

    SseChunkStream(UpstreamResponse response, OpenAiCodec codec) {
        this.response = response;
        this.reader = new SseLineReader(response.body(), response.maxEventBytes());
        this.codec = codec;
    }

    @Override
    public StreamChunk next() throws IOException {
        while (!done) {
            String data = nextData();
            if (data == HEARTBEAT) {
                return StreamChunk.heartbeat(lastId, lastModel);
            }
            if (data == null && !finished) {
                done = true;
                throw new java.io.EOFException("the upstream closed the stream before it finished (no finish_reason, no [DONE])");
            }
            if (data == null || data.equals("[DONE]")) {
                done = true;
                completed = true;
                return null;
            }
            if (data.isBlank()) {
                continue;
            }
            if (data.startsWith("{\"error\"")) {
                done = true;
                throw new IOException("upstream sent an error inside the stream: " + truncate(data));
            }
            // a large event is parsed only when its tree stays within the room its frame is counted as
            try {
                dev.sluice.runtime.io.AnswerBuffers.checkStreamEvent(data);
            } catch (java.net.ProtocolException e) {
                done = true;
                throw e;
            }
            try {
                StreamChunk chunk = codec.readChunk(data);
                lastId = chunk.id();
                lastModel = chunk.model();
                for (var c : chunk.choices()) {
                    if (c.finishReason() != null) {
                        finished = true;
                    }
                }
                return chunk;
            } catch (InvalidRequestException e) {
                done = true;
                throw new IOException("upstream sent an unreadable stream event: " + e.getMessage());
            }
        }
        return null;
    }

    /**
     * The data of the next event (multi-line data joined by newlines), or null at end of stream.
     * Nearly every event is one {@code data:} line, which is returned as it is: copying each
     * chunk's JSON into a builder and out again cost two copies per chunk for nothing.
     */
    private String nextData() throws IOException {
        String data = null;
        StringBuilder joined = null;
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null) {
                    return joined == null ? data : joined.toString();
                }
                continue;
            }
            if (line.charAt(0) == ':' && data == null) {
                // a keep-alive comment between events: relayed as one, so that a client that went
                // away is noticed even while the upstream sends no data
                return HEARTBEAT;
            }
            if (line.startsWith("data:")) {
                String v = line.length() > 5 && line.charAt(5) == ' ' ? line.substring(6) : line.substring(5);
                if (data == null) {
                    data = v;
                } else {
                    if (joined == null) {
                        joined = new StringBuilder(data);
                    }
                    joined.append('\n').append(v);
                    reader.checkEvent(joined.length());
                }
            }
            // comments (":"), event:, id: and retry: lines carry nothing the canonical model needs
        }
        return data == null ? null : joined == null ? data : joined.toString();
    }

    private static String truncate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "…" : s;
    }

    /**
     * After a complete stream the rest of the body (normally just the chunked terminator) is read,
     * so the upstream connection goes back to the keep-alive pool instead of being closed: a new
     * TCP connection per stream cost every stream's first byte. An abandoned stream is not drained.
     */
    @Override
    public void close() {
        if (completed) {
            try {
                long skipped = 0;
                int n;
                byte[] sink = new byte[1024];
                while (skipped < MAX_DRAIN && (n = response.body().read(sink)) > 0) {
                    skipped += n;
                }
            } catch (IOException ignored) {
                // the connection is discarded by close() below
            }
        }
        done = true;
        response.close();
    }

}
