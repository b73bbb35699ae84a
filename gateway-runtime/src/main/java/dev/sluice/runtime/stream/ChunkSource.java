package dev.sluice.runtime.stream;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import java.io.IOException;

/**
 * An executor's canonical stream as a pump's source.
 *
 * @param stream the executor's stream
 */
public record ChunkSource(ChunkStream stream) implements Pump.Source<StreamChunk> {

    @Override
    public StreamChunk next() throws IOException {
        return stream.next();
    }

    /**
     * A chunk's size for the stream's memory bounds: the characters of its deltas (text, reasoning,
     * tool arguments), which is what can be large; no copy, a few field reads.
     *
     * @param c the chunk
     * @return its size
     */
    public static int size(StreamChunk c) {
        long n = 0;
        for (ChunkChoice choice : c.choices()) {
            n += length(choice.contentDelta()) + length(choice.reasoningDelta());
            for (ToolCallDelta t : choice.toolCalls()) {
                n += length(t.argumentsDelta());
            }
        }
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    private static int length(String s) {
        return s == null ? 0 : s.length();
    }

    @Override
    public void close() {
        stream.close();
    }
}
