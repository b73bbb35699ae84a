package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * One message of a conversation.
 *
 * @param role author
 * @param content content parts (empty for an assistant message that only calls tools)
 * @param name optional participant name, or null
 * @param toolCalls tool calls made by an assistant message
 * @param toolCallId for a {@link Role#TOOL} message: the call it answers, else null
 * @param reasoningContent the model's visible reasoning ({@code reasoning_content}, Claude
 *     thinking), or null
 * @param extra other fields of the message (e.g. {@code refusal}, {@code annotations}), by name,
 *     as raw JSON, kept verbatim
 */
public record ChatMessage(Role role, List<ContentPart> content, String name, List<ToolCall> toolCalls, String toolCallId,
        String reasoningContent, Map<String, String> extra) {

    /** Validates the fields and copies the collections. */
    public ChatMessage {
        requireNonNull(role, "role is null");
        content = content == null ? List.of() : List.copyOf(content);
        toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * A message without extra fields.
     *
     * @param role author
     * @param content content parts
     * @param name participant name, or null
     * @param toolCalls tool calls
     * @param toolCallId the call a tool message answers, or null
     * @param reasoningContent visible reasoning, or null
     */
    public ChatMessage(Role role, List<ContentPart> content, String name, List<ToolCall> toolCalls, String toolCallId,
            String reasoningContent) {
        this(role, content, name, toolCalls, toolCallId, reasoningContent, Map.of());
    }

    /**
     * A text-only message.
     *
     * @param role author
     * @param text the text
     * @return the message
     */
    public static ChatMessage text(Role role, String text) {
        return new ChatMessage(role, List.of(new ContentPart.Text(text)), null, List.of(), null, null);
    }

    /**
     * The concatenated text parts.
     *
     * @return the text, empty when there is none
     */
    public String textContent() {
        StringBuilder sb = new StringBuilder();
        for (ContentPart p : content) {
            if (p instanceof ContentPart.Text t) {
                sb.append(t.text());
            }
        }
        return sb.toString();
    }
}
