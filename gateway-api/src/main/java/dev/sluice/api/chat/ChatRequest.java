package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * A chat request in canonical form.
 *
 * @param model the model id (as routed: the upstream id when handed to an executor)
 * @param messages the conversation, at least one message
 * @param tools functions the model may call
 * @param toolChoiceJson the tool choice as raw JSON ({@code "auto"}, an object ...), or null
 * @param stream whether the client wants a stream
 * @param maxTokens output token limit, or null
 * @param temperature sampling temperature, or null
 * @param topP nucleus sampling, or null
 * @param stop stop sequences
 * @param extra every other top-level request parameter, by name, as raw JSON, kept verbatim
 *     (e.g. {@code response_format}, {@code seed}, {@code stream_options})
 */
public record ChatRequest(
        String model,
        List<ChatMessage> messages,
        List<ToolDefinition> tools,
        String toolChoiceJson,
        boolean stream,
        Integer maxTokens,
        Double temperature,
        Double topP,
        List<String> stop,
        Map<String, String> extra) {

    /** Validates the fields and copies the collections. */
    public ChatRequest {
        requireNonNull(model, "model is null");
        messages = List.copyOf(requireNonNull(messages, "messages is null"));
        tools = tools == null ? List.of() : List.copyOf(tools);
        stop = stop == null ? List.of() : List.copyOf(stop);
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * The same request for another model id.
     *
     * @param otherModel the model id
     * @return the copy
     */
    public ChatRequest withModel(String otherModel) {
        return new ChatRequest(otherModel, messages, tools, toolChoiceJson, stream, maxTokens, temperature, topP, stop, extra);
    }

    /**
     * The same request with another output token limit.
     *
     * @param limit the limit, or null for none
     * @return the copy
     */
    public ChatRequest withMaxTokens(Integer limit) {
        return new ChatRequest(model, messages, tools, toolChoiceJson, stream, limit, temperature, topP, stop, extra);
    }

    /**
     * A builder; fields the SPI adds later get defaults here, so code using it keeps linking.
     *
     * @param model the model id
     * @param messages the conversation
     * @return the builder (no tools, tool choice, limits or extra parameters; not streaming)
     */
    public static Builder builder(String model, List<ChatMessage> messages) {
        return new Builder().model(model).messages(messages);
    }

    /**
     * A builder holding this request's values: the way to change one field and keep the rest.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.model = model;
        b.messages = messages;
        b.tools = tools;
        b.toolChoiceJson = toolChoiceJson;
        b.stream = stream;
        b.maxTokens = maxTokens;
        b.temperature = temperature;
        b.topP = topP;
        b.stop = stop;
        b.extra = extra;
        return b;
    }

    /** Builds a {@link ChatRequest}; not thread-safe. */
    public static final class Builder {
        private String model;
        private List<ChatMessage> messages;
        private List<ToolDefinition> tools = List.of();
        private String toolChoiceJson;
        private boolean stream;
        private Integer maxTokens;
        private Double temperature;
        private Double topP;
        private List<String> stop = List.of();
        private Map<String, String> extra = Map.of();

        private Builder() {
        }

        /**
         * @param value the model id
         * @return this builder
         */
        public Builder model(String value) {
            model = value;
            return this;
        }

        /**
         * @param value the conversation
         * @return this builder
         */
        public Builder messages(List<ChatMessage> value) {
            messages = value;
            return this;
        }

        /**
         * @param value functions the model may call
         * @return this builder
         */
        public Builder tools(List<ToolDefinition> value) {
            tools = value;
            return this;
        }

        /**
         * @param value the tool choice as raw JSON, or null
         * @return this builder
         */
        public Builder toolChoiceJson(String value) {
            toolChoiceJson = value;
            return this;
        }

        /**
         * @param value whether the client wants a stream
         * @return this builder
         */
        public Builder stream(boolean value) {
            stream = value;
            return this;
        }

        /**
         * @param value output token limit, or null
         * @return this builder
         */
        public Builder maxTokens(Integer value) {
            maxTokens = value;
            return this;
        }

        /**
         * @param value sampling temperature, or null
         * @return this builder
         */
        public Builder temperature(Double value) {
            temperature = value;
            return this;
        }

        /**
         * @param value nucleus sampling, or null
         * @return this builder
         */
        public Builder topP(Double value) {
            topP = value;
            return this;
        }

        /**
         * @param value stop sequences
         * @return this builder
         */
        public Builder stop(List<String> value) {
            stop = value;
            return this;
        }

        /**
         * @param value other parameters by name, as raw JSON
         * @return this builder
         */
        public Builder extra(Map<String, String> value) {
            extra = value;
            return this;
        }

        /**
         * @return the request
         * @throws NullPointerException when the model or messages are missing
         */
        public ChatRequest build() {
            return new ChatRequest(model, messages, tools, toolChoiceJson, stream, maxTokens, temperature, topP, stop, extra);
        }
    }
}
