package dev.sluice.plugin.codex;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolCallDelta;
import dev.sluice.api.chat.Usage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Gathers a translated stream into one chat answer, for a client that did not ask for a stream:
 * the backend only streams (Codex always sends {@code stream: true}), so the whole stream is read
 * here, bounded by the host's stream limits, and its pieces joined.
 */
final class StreamGatherer {

    private StreamGatherer() {
    }

    static ChatResponse gather(ChunkStream stream, String fallbackModel, long created) throws IOException {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        Map<Integer, String[]> tools = new TreeMap<>();
        String id = null;
        String model = fallbackModel;
        String finish = null;
        Usage usage = null;
        StreamChunk chunk;
        while ((chunk = stream.next()) != null) {
            id = chunk.id();
            model = chunk.model() == null ? model : chunk.model();
            if (chunk.usage() != null) {
                usage = chunk.usage();
            }
            for (ChunkChoice c : chunk.choices()) {
                if (c.contentDelta() != null) {
                    text.append(c.contentDelta());
                }
                if (c.reasoningDelta() != null) {
                    reasoning.append(c.reasoningDelta());
                }
                for (ToolCallDelta d : c.toolCalls()) {
                    String[] t = tools.computeIfAbsent(d.index(), i -> new String[] {null, null, ""});
                    t[0] = d.id() != null ? d.id() : t[0];
                    t[1] = d.name() != null ? d.name() : t[1];
                    t[2] = d.argumentsDelta() != null ? t[2] + d.argumentsDelta() : t[2];
                }
                if (c.finishReason() != null) {
                    finish = c.finishReason();
                }
            }
        }
        List<ToolCall> calls = new ArrayList<>();
        tools.values().forEach(t -> calls.add(new ToolCall(t[0], t[1], t[2].isEmpty() ? "{}" : t[2])));
        ChatMessage.Builder message = ChatMessage.builder(Role.ASSISTANT).toolCalls(calls)
                .reasoningContent(reasoning.isEmpty() ? null : reasoning.toString());
        if (!text.isEmpty() || calls.isEmpty()) {
            message.text(text.toString());
        }
        return new ChatResponse(id == null ? "resp" : id, model, created, List.of(new Choice(0, message.build(), finish, Map.of())),
                usage, Map.of());
    }
}
