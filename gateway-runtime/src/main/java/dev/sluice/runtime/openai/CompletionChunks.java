package dev.sluice.runtime.openai;

import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolCallDelta;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A complete answer as a stream, for upstreams that ignore {@code "stream": true}: one chunk with
 * each choice's whole message, then one with the finish reasons and usage.
 */
final class CompletionChunks {

    private CompletionChunks() {
    }

    static ChunkStream of(ChatResponse r) {
        List<ChunkChoice> content = new ArrayList<>();
        List<ChunkChoice> finish = new ArrayList<>();
        for (Choice c : r.choices()) {
            List<ToolCallDelta> calls = new ArrayList<>();
            int i = 0;
            for (ToolCall t : c.message().toolCalls()) {
                calls.add(new ToolCallDelta(i++, t.id(), t.name(), t.argumentsJson()));
            }
            content.add(new ChunkChoice(c.index(), c.message().role(), c.message().textContent(), calls, null,
                    c.message().reasoningContent()));
            finish.add(new ChunkChoice(c.index(), null, null, List.of(), c.finishReason() == null ? "stop" : c.finishReason(), null));
        }
        Iterator<StreamChunk> chunks = List.of(
                new StreamChunk(r.id(), r.model(), r.created(), content, null, r.extra()),
                new StreamChunk(r.id(), r.model(), r.created(), finish, r.usage(), java.util.Map.of())).iterator();
        return new ChunkStream() {
            @Override
            public StreamChunk next() {
                return chunks.hasNext() ? chunks.next() : null;
            }

            @Override
            public void close() {
                // nothing held: the answer was read completely
            }
        };
    }
}
