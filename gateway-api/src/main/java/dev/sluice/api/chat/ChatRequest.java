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
}
