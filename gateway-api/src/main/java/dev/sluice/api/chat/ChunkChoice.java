package dev.sluice.api.chat;

import java.util.List;
import java.util.Map;

/**
 * One alternative's increment in a stream chunk.
 *
 * @param index position
 * @param role the role, on the first chunk only, else null
 * @param contentDelta the next piece of text, or null
 * @param toolCalls tool-call pieces
 * @param finishReason why generation stopped, on the last chunk only, else null
 * @param reasoningDelta the next piece of visible reasoning, or null
 * @param deltaExtra other fields of the delta (e.g. {@code refusal}), as raw JSON, kept verbatim
 * @param extra other fields of the choice (e.g. {@code logprobs}), as raw JSON, kept verbatim
 */
public record ChunkChoice(int index, Role role, String contentDelta, List<ToolCallDelta> toolCalls, String finishReason,
        String reasoningDelta, Map<String, String> deltaExtra, Map<String, String> extra) {

    /** Copies the collections. */
    public ChunkChoice {
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        deltaExtra = deltaExtra == null ? Map.of() : Map.copyOf(deltaExtra);
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * An increment without extra fields.
     *
     * @param index position
     * @param role the role on the first chunk, else null
     * @param contentDelta the next piece of text, or null
     * @param toolCalls tool-call pieces
     * @param finishReason why generation stopped, or null
     * @param reasoningDelta the next piece of visible reasoning, or null
     */
    public ChunkChoice(int index, Role role, String contentDelta, List<ToolCallDelta> toolCalls, String finishReason,
            String reasoningDelta) {
        this(index, role, contentDelta, toolCalls, finishReason, reasoningDelta, Map.of(), Map.of());
    }
}
