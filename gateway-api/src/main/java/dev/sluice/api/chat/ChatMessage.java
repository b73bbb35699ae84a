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
     * @see #toBuilder() toBuilder(), to change a message without dropping its extra fields
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
        return new ChatMessage(role, List.of(new ContentPart.Text(text)), null, List.of(), null, null, Map.of());
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

    /**
     * A builder; fields the SPI adds later get defaults here, so code using it keeps linking.
     *
     * @param role author
     * @return the builder (no content, name, tool calls, reasoning or extra fields)
     */
    public static Builder builder(Role role) {
        return new Builder(role);
    }

    /**
     * A builder holding this message's values, extra fields included: the way to change one
     * field of a message.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return new Builder(role).content(content).name(name).toolCalls(toolCalls).toolCallId(toolCallId)
                .reasoningContent(reasoningContent).extra(extra);
    }

    /** Builds a {@link ChatMessage}; not thread-safe. */
    public static final class Builder {
        private Role role;
        private List<ContentPart> content = List.of();
        private String name;
        private List<ToolCall> toolCalls = List.of();
        private String toolCallId;
        private String reasoningContent;
        private Map<String, String> extra = Map.of();

        private Builder(Role role) {
            this.role = role;
        }

        /**
         * @param value author
         * @return this builder
         */
        public Builder role(Role value) {
            role = value;
            return this;
        }

        /**
         * @param value content parts
         * @return this builder
         */
        public Builder content(List<ContentPart> value) {
            content = value;
            return this;
        }

        /**
         * Sets the content to one text part.
         *
         * @param value the text
         * @return this builder
         */
        public Builder text(String value) {
            content = List.of(new ContentPart.Text(value));
            return this;
        }

        /**
         * @param value participant name, or null
         * @return this builder
         */
        public Builder name(String value) {
            name = value;
            return this;
        }

        /**
         * @param value tool calls of an assistant message
         * @return this builder
         */
        public Builder toolCalls(List<ToolCall> value) {
            toolCalls = value;
            return this;
        }

        /**
         * @param value the call a tool message answers, or null
         * @return this builder
         */
        public Builder toolCallId(String value) {
            toolCallId = value;
            return this;
        }

        /**
         * @param value visible reasoning, or null
         * @return this builder
         */
        public Builder reasoningContent(String value) {
            reasoningContent = value;
            return this;
        }

        /**
         * @param value other fields by name, as raw JSON
         * @return this builder
         */
        public Builder extra(Map<String, String> value) {
            extra = value;
            return this;
        }

        /**
         * @return the message
         * @throws NullPointerException when the role is null
         */
        public ChatMessage build() {
            return new ChatMessage(role, content, name, toolCalls, toolCallId, reasoningContent, extra);
        }
    }
}
