package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gemini {@code GenerateContentResponse} → canonical answer. Each candidate becomes a choice: its
 * text parts are concatenated into the content, {@code thought: true} parts into
 * {@code reasoning_content}, and {@code functionCall} parts become tool calls with generated ids.
 * Parts of other kinds (inline data, executable code, code results) are not translated.
 */
final class GeminiResponseReader {

    private GeminiResponseReader() {
    }

    /**
     * Translates a complete answer.
     *
     * @param body the response body
     * @param requestedModel the model the request named (used when Gemini sends no {@code modelVersion})
     * @param created epoch seconds for the answer
     * @param ids id source
     * @return the canonical answer
     * @throws UnexpectedAnswerException when the body is not a {@code GenerateContentResponse}
     */
    static ChatResponse read(String body, String requestedModel, long created, Ids ids) {
        Map<String, Object> root;
        try {
            root = Json.parseObject(body);
        } catch (JsonException e) {
            throw new UnexpectedAnswerException("the answer is not a JSON object (" + e.getMessage() + ")");
        }
        return read(root, requestedModel, created, ids);
    }

    /**
     * Translates a complete answer already parsed (the {@code response} member of a Code Assist
     * answer, issue 36).
     *
     * @param root the {@code GenerateContentResponse}
     * @param requestedModel the model the request named
     * @param created epoch seconds for the answer
     * @param ids id source
     * @return the canonical answer
     * @throws UnexpectedAnswerException when it is not a {@code GenerateContentResponse}
     */
    static ChatResponse read(Map<String, Object> root, String requestedModel, long created, Ids ids) {
        checkIsResponse(root);
        List<Choice> choices = new ArrayList<>();
        List<Object> candidates = Json.array(root, "candidates");
        if (candidates.isEmpty()) {
            choices.add(blockedPromptChoice(root));
        } else {
            for (int i = 0; i < candidates.size(); i++) {
                choices.add(choice(candidates.get(i), i, ids));
            }
        }
        String id = Json.string(root, "responseId");
        String model = Json.string(root, "modelVersion");
        return new ChatResponse(id == null || id.isEmpty() ? ids.responseId() : id,
                model == null || model.isEmpty() ? requestedModel : model, created, choices,
                UsageReader.read(Json.object(root, "usageMetadata")), Map.of());
    }

    /**
     * Refuses a JSON object that is not a {@code GenerateContentResponse}: it must hold candidates
     * or a prompt block (an answer with neither cannot be translated into a choice).
     *
     * @param root the parsed answer
     */
    static void checkIsResponse(Map<String, Object> root) {
        if (root.containsKey("error")) {
            throw new UnexpectedAnswerException("the answer is an error object: " + GeminiErrorReader.summary(root));
        }
        boolean hasCandidates = !Json.array(root, "candidates").isEmpty();
        if (!hasCandidates && Json.string(Json.object(root, "promptFeedback"), "blockReason") == null) {
            throw new UnexpectedAnswerException("the answer has no candidates and no promptFeedback.blockReason");
        }
    }

    /**
     * The choice for a prompt Gemini refused to answer ({@code promptFeedback.blockReason}, no
     * candidates): empty content, finish {@code content_filter}, the block reason as
     * {@code native_finish_reason}. Not an error: the request was understood and answered.
     *
     * @param root the parsed answer
     * @return the choice
     */
    static Choice blockedPromptChoice(Map<String, Object> root) {
        String reason = Json.string(Json.object(root, "promptFeedback"), "blockReason");
        return new Choice(0, new ChatMessage(Role.ASSISTANT, List.of(), null, List.of(), null, null),
                FinishReasons.CONTENT_FILTER, FinishReasons.nativeExtra(reason == null ? "OTHER" : reason));
    }

    private static Choice choice(Object candidate, int position, Ids ids) {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = null;
        List<ToolCall> toolCalls = new ArrayList<>();
        for (Object part : Json.array(Json.object(candidate, "content"), "parts")) {
            Map<String, Object> call = Json.object(part, "functionCall");
            if (call != null) {
                toolCalls.add(toolCall(call, ids));
                continue;
            }
            String t = Json.string(part, "text");
            if (t == null) {
                continue; // inline data, executable code, a bare thought signature: no canonical form
            }
            if (Json.isTrue(part, "thought")) {
                reasoning = reasoning == null ? new StringBuilder(t) : reasoning.append(t);
            } else {
                text.append(t);
            }
        }
        String finish = Json.string(candidate, "finishReason");
        Long index = Json.number(candidate, "index");
        List<ContentPart> content = text.isEmpty() ? List.of() : List.of(new ContentPart.Text(text.toString()));
        ChatMessage message = new ChatMessage(Role.ASSISTANT, content, null, toolCalls, null,
                reasoning == null ? null : reasoning.toString());
        // a complete answer always ends: a candidate without a finish reason is taken as a stop
        return new Choice(index == null ? position : index.intValue(), message,
                FinishReasons.map(finish == null ? "STOP" : finish, !toolCalls.isEmpty()), FinishReasons.nativeExtra(finish));
    }

    /**
     * A function call as a tool call: Gemini's {@code id} when it sent one, else a generated one;
     * the arguments object as JSON text.
     *
     * @param call the {@code functionCall} object
     * @param ids id source
     * @return the tool call
     */
    static ToolCall toolCall(Map<String, Object> call, Ids ids) {
        String id = Json.string(call, "id");
        String name = Json.string(call, "name");
        Object args = call.get("args");
        return new ToolCall(id == null || id.isEmpty() ? ids.toolCallId() : id, name == null ? "" : name,
                Json.write(args == null ? new LinkedHashMap<>() : args));
    }
}
