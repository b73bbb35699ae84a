package dev.sluice.runtime.responses;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatRequest;
import java.util.List;

/**
 * A Responses API request as Sluice serves it: the canonical request, and what the answer must
 * echo or say about it.
 *
 * @param chat the canonical request (any provider serves it through its executor)
 * @param droppedTools built-in tool types a translated upstream cannot run, dropped (named in a header)
 * @param background the client asked for {@code background: true}, served synchronously (OF-1)
 * @param echo request fields the answer's {@code response} object repeats, as raw JSON by name
 * @param customTools names of {@code custom} (free-form input) tools, offered upstream as functions
 *     taking one string {@code input}: their calls are answered as {@code custom_tool_call} items
 * @param untranslatable why the body cannot be translated through the canonical model (a 400 naming
 *     the field), or null; when set, {@code chat} carries the routing facts only (model, stream) and
 *     only connections that pass the body through may serve the request (issue 32)
 */
public record ResponsesRequest(ChatRequest chat, List<String> droppedTools, boolean background, java.util.Map<String, String> echo,
        java.util.Set<String> customTools, dev.sluice.runtime.openai.InvalidRequestException untranslatable) {

    /** Validates and copies. */
    public ResponsesRequest {
        requireNonNull(chat, "chat is null");
        droppedTools = List.copyOf(droppedTools);
        echo = java.util.Map.copyOf(echo);
        customTools = java.util.Set.copyOf(customTools);
    }
}
