package dev.sluice.api.chat;

import java.util.List;

/**
 * One alternative's increment in a stream chunk.
 *
 * @param index position
 * @param role the role, on the first chunk only, else null
 * @param contentDelta the next piece of text, or null
 * @param toolCalls tool-call pieces
 * @param finishReason why generation stopped, on the last chunk only, else null
 * @param reasoningDelta the next piece of visible reasoning, or null
 */
public record ChunkChoice(int index, Role role, String contentDelta, List<ToolCallDelta> toolCalls, String finishReason,
        String reasoningDelta) {

    /** Copies the list. */
    public ChunkChoice {
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    }
}
