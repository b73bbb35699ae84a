package dev.sluice.runtime.stream;

import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
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

    @Override
    public void close() {
        stream.close();
    }
}
