package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates a canonical (OpenAI-style) chat request into an Anthropic Messages request body.
 * What is translated, and what is dropped, is listed in docs/providers/claude.md; the rules in
 * short:
 * <ul>
 *   <li>system and developer messages, wherever they are, become the top-level {@code system}
 *       (a string for one text, else an array of text blocks, in order);</li>
 *   <li>tool messages become {@code tool_result} blocks of a user turn; consecutive turns of the
 *       same role are merged (Anthropic requires alternation), and in a user turn the
 *       {@code tool_result} blocks come first (Anthropic rejects text before them);</li>
 *   <li>assistant tool calls become {@code tool_use} blocks whose {@code input} is the parsed
 *       arguments object; arguments that are not a JSON object become {@code {}};</li>
 *   <li>{@code max_tokens} (required by Anthropic) comes from the request, else
 *       {@code max_completion_tokens}, else a default.</li>
 * </ul>
 * Thread-safe (immutable).
 */
final class MessagesRequestWriter {

    /** {@code max_tokens} when the request names no limit (Anthropic requires one). */
    static final int DEFAULT_MAX_TOKENS = 4096;

    private final int defaultMaxTokens;

    /**
     * Creates the writer.
     *
     * @param defaultMaxTokens {@code max_tokens} when the request names none
     */
    MessagesRequestWriter(int defaultMaxTokens) {
        if (defaultMaxTokens < 1) {
            throw new IllegalArgumentException("defaultMaxTokens must be at least 1");
        }
        this.defaultMaxTokens = defaultMaxTokens;
    }

    /**
     * The request body.
     *
     * @param r the canonical request
     * @return UTF-8 JSON
     */
    byte[] write(ChatRequest r) {
        return Json.write(toJson(r)).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The request as a JSON tree.
     *
     * @param r the canonical request
     * @return the Messages request
     */
    Map<String, Object> toJson(ChatRequest r) {
        Map<String, Object> thinking = objectExtra(r, "thinking");

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("model", r.model());
        out.put("max_tokens", maxTokens(r, thinking));

        List<Map<String, Object>> system = new ArrayList<>();
        boolean plainSystem = true;
        List<Turn> turns = new ArrayList<>();
        for (ChatMessage m : r.messages()) {
            switch (m.role()) {
                case SYSTEM, DEVELOPER -> {
                    for (ContentPart p : m.content()) {
                        if (p instanceof ContentPart.Text t && !t.text().isEmpty()) {
                            system.add(ContentBlocks.text(t.text()));
                        } else if (p instanceof ContentPart.Other o && o.type().equals("text")) {
                            Map<String, Object> block = ContentBlocks.parse(o.json());
                            if (block != null) {
                                system.add(block);
                                plainSystem = false;
                            }
                        }
                    }
                }
                case USER -> addTurn(turns, "user", ContentBlocks.of(m.content(), true));
                case ASSISTANT -> addTurn(turns, "assistant", assistantBlocks(m));
                case TOOL -> addTurn(turns, "user", m.toolCallId() == null
                        ? ContentBlocks.of(m.content(), true)
                        : new ArrayList<>(List.of(toolResult(m))));
            }
        }
        if (!system.isEmpty()) {
            out.put("system", plainSystem && system.size() == 1 ? system.get(0).get("text") : system);
        }
        trimFinalAssistantTurn(turns);
        List<Object> messages = new ArrayList<>(turns.size());
        for (Turn t : turns) {
            messages.add(t.toJson());
        }
        out.put("messages", messages);

        if (!r.tools().isEmpty()) {
            List<Object> tools = new ArrayList<>(r.tools().size());
            for (ToolDefinition t : r.tools()) {
                tools.add(tool(t));
            }
            out.put("tools", tools);
            Map<String, Object> choice = toolChoice(r.toolChoiceJson());
            if (Boolean.FALSE.equals(parseExtra(r, "parallel_tool_calls"))) {
                if (choice == null) {
                    choice = new LinkedHashMap<>(Map.of("type", "auto"));
                }
                if (!"none".equals(choice.get("type"))) {
                    choice.put("disable_parallel_tool_use", true);
                }
            }
            if (choice != null) {
                out.put("tool_choice", choice);
            }
        }
        if (r.temperature() != null) {
            // OpenAI allows 0..2, Anthropic 0..1: clamp rather than have Anthropic refuse the request
            out.put("temperature", Math.max(0.0, Math.min(1.0, r.temperature())));
        }
        if (r.topP() != null) {
            out.put("top_p", r.topP());
        }
        if (parseExtra(r, "top_k") instanceof Number k) {
            out.put("top_k", k.longValue());
        }
        if (!r.stop().isEmpty()) {
            out.put("stop_sequences", new ArrayList<>(r.stop()));
        }
        if (r.stream()) {
            out.put("stream", true);
        }
        String userId = userId(r);
        if (userId != null) {
            out.put("metadata", Map.of("user_id", userId));
        }
        if (thinking != null) {
            out.put("thinking", thinking);
        }
        return out;
    }

    // ---------------------------------------------------------------- parameters

    private long maxTokens(ChatRequest r, Map<String, Object> thinking) {
        if (r.maxTokens() != null) {
            return r.maxTokens();
        }
        if (parseExtra(r, "max_completion_tokens") instanceof Number n && n.longValue() > 0) {
            return n.longValue();
        }
        // Anthropic requires max_tokens > thinking.budget_tokens: leave the default's room for the answer
        Long budget = Json.number(thinking, "budget_tokens");
        return budget != null && budget >= defaultMaxTokens ? budget + defaultMaxTokens : defaultMaxTokens;
    }

    private static String userId(ChatRequest r) {
        String fromMetadata = Json.string(parseExtra(r, "metadata"), "user_id");
        if (fromMetadata != null && !fromMetadata.isEmpty()) {
            return fromMetadata;
        }
        return parseExtra(r, "user") instanceof String u && !u.isEmpty() ? u : null;
    }

    private static Map<String, Object> toolChoice(String json) {
        if (json == null) {
            return null;
        }
        Object v;
        try {
            v = Json.parse(json);
        } catch (JsonException e) {
            return null;
        }
        if (v instanceof String s) {
            return switch (s) {
                case "auto" -> new LinkedHashMap<>(Map.of("type", "auto"));
                case "none" -> new LinkedHashMap<>(Map.of("type", "none"));
                case "required", "any" -> new LinkedHashMap<>(Map.of("type", "any"));
                default -> null;
            };
        }
        String type = Json.string(v, "type");
        if ("function".equals(type)) {
            String name = Json.string(Json.object(v, "function"), "name");
            if (name == null) {
                return null;
            }
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("type", "tool");
            c.put("name", name);
            return c;
        }
        if ("auto".equals(type) || "any".equals(type) || "none".equals(type) || ("tool".equals(type) && Json.string(v, "name") != null)) {
            // already Anthropic-shaped (an Anthropic-format client): keep it
            @SuppressWarnings("unchecked")
            Map<String, Object> c = new LinkedHashMap<>((Map<String, Object>) v);
            return c;
        }
        return null;
    }

    private static Map<String, Object> tool(ToolDefinition t) {
        Map<String, Object> tool = new LinkedHashMap<>();
        tool.put("name", t.name());
        if (t.description() != null && !t.description().isEmpty()) {
            tool.put("description", t.description());
        }
        Map<String, Object> schema = null;
        if (t.parametersJson() != null) {
            try {
                schema = Json.parse(t.parametersJson()) instanceof Map<?, ?> m ? Json.mutableObject(m) : null;
            } catch (JsonException e) {
                schema = null;
            }
        }
        if (schema == null) {
            schema = new LinkedHashMap<>();
        }
        // Anthropic requires an object schema; OpenAI tolerates a schema without "type"
        schema.putIfAbsent("type", "object");
        tool.put("input_schema", schema);
        return tool;
    }

    // ---------------------------------------------------------------- messages

    private static void addTurn(List<Turn> turns, String role, List<Map<String, Object>> blocks) {
        if (blocks.isEmpty()) {
            return;
        }
        if (!turns.isEmpty() && turns.get(turns.size() - 1).role.equals(role)) {
            turns.get(turns.size() - 1).blocks.addAll(blocks);
        } else {
            turns.add(new Turn(role, blocks));
        }
    }

    private static List<Map<String, Object>> assistantBlocks(ChatMessage m) {
        List<Map<String, Object>> blocks = new ArrayList<>();
        // signed thinking blocks a client kept from an earlier answer (see MessagesResponseReader):
        // Anthropic needs them back verbatim when thinking and tool use are combined
        String thinkingBlocks = m.extra().get(MessagesResponseReader.THINKING_BLOCKS);
        if (thinkingBlocks != null) {
            try {
                if (Json.parse(thinkingBlocks) instanceof List<?> list) {
                    for (Object b : list) {
                        String type = Json.string(b, "type");
                        if ("thinking".equals(type) || "redacted_thinking".equals(type)) {
                            blocks.add(Json.mutableObject((Map<?, ?>) b));
                        }
                    }
                }
            } catch (JsonException ignored) {
                // not a list of blocks: nothing to send back
            }
        }
        blocks.addAll(ContentBlocks.of(m.content(), false));
        for (ToolCall tc : m.toolCalls()) {
            Map<String, Object> use = new LinkedHashMap<>();
            use.put("type", "tool_use");
            use.put("id", toolId(tc.id()));
            use.put("name", tc.name());
            use.put("input", toolInput(tc.argumentsJson()));
            blocks.add(use);
        }
        return blocks;
    }

    private static Map<String, Object> toolResult(ChatMessage m) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("type", "tool_result");
        result.put("tool_use_id", toolId(m.toolCallId()));
        List<Map<String, Object>> content = ContentBlocks.of(m.content(), true);
        if (content.size() == 1 && ContentBlocks.isPlainText(content.get(0))) {
            result.put("content", content.get(0).get("text"));
        } else if (!content.isEmpty()) {
            result.put("content", content);
        }
        return result;
    }

    /**
     * Anthropic refuses a final assistant turn (a prefill) that ends with whitespace; trailing
     * whitespace is removed, and a turn left empty is dropped.
     */
    private static void trimFinalAssistantTurn(List<Turn> turns) {
        if (turns.isEmpty() || !turns.get(turns.size() - 1).role.equals("assistant")) {
            return;
        }
        List<Map<String, Object>> blocks = turns.get(turns.size() - 1).blocks;
        Map<String, Object> last = blocks.get(blocks.size() - 1);
        if ("text".equals(last.get("type")) && last.get("text") instanceof String text) {
            String trimmed = text.stripTrailing();
            if (trimmed.isEmpty()) {
                blocks.remove(blocks.size() - 1);
            } else {
                last.put("text", trimmed);
            }
        }
        if (blocks.isEmpty()) {
            turns.remove(turns.size() - 1);
        }
    }

    private static Map<String, Object> toolInput(String argumentsJson) {
        if (argumentsJson == null || argumentsJson.isBlank()) {
            return new LinkedHashMap<>();
        }
        try {
            // Anthropic requires an object; arguments that are not one (a truncated or invalid JSON text
            // from the model, a bare value) are sent as {} rather than failing the whole conversation
            return Json.parse(argumentsJson) instanceof Map<?, ?> m ? Json.mutableObject(m) : new LinkedHashMap<>();
        } catch (JsonException e) {
            return new LinkedHashMap<>();
        }
    }

    /** Anthropic tool ids must match {@code [a-zA-Z0-9_-]+}; ids from other providers may not. */
    static String toolId(String id) {
        if (id == null || id.isEmpty()) {
            return "call";
        }
        StringBuilder sb = null;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            if (!ok && sb == null) {
                sb = new StringBuilder(id.substring(0, i));
            }
            if (sb != null) {
                sb.append(ok ? c : '_');
            }
        }
        return sb == null ? id : sb.toString();
    }

    private static Object parseExtra(ChatRequest r, String name) {
        String raw = r.extra().get(name);
        if (raw == null) {
            return null;
        }
        try {
            return Json.parse(raw);
        } catch (JsonException e) {
            return null;
        }
    }

    private static Map<String, Object> objectExtra(ChatRequest r, String name) {
        return parseExtra(r, name) instanceof Map<?, ?> m ? Json.mutableObject(m) : null;
    }

    /** One Anthropic turn being assembled. */
    private static final class Turn {
        final String role;
        final List<Map<String, Object>> blocks;

        Turn(String role, List<Map<String, Object>> blocks) {
            this.role = role;
            this.blocks = new ArrayList<>(blocks);
        }

        Map<String, Object> toJson() {
            List<Map<String, Object>> ordered = blocks;
            if (role.equals("user")) {
                // tool results must open the turn that answers the tool calls
                ordered = new ArrayList<>(blocks.size());
                for (Map<String, Object> b : blocks) {
                    if ("tool_result".equals(b.get("type"))) {
                        ordered.add(b);
                    }
                }
                for (Map<String, Object> b : blocks) {
                    if (!"tool_result".equals(b.get("type"))) {
                        ordered.add(b);
                    }
                }
            }
            Map<String, Object> msg = new LinkedHashMap<>();
            msg.put("role", role);
            msg.put("content", ordered.size() == 1 && ContentBlocks.isPlainText(ordered.get(0)) ? ordered.get(0).get("text") : ordered);
            return msg;
        }
    }
}
