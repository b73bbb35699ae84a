package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Canonical (OpenAI-style) chat request → Gemini {@code GenerateContentRequest}. Pure: no I/O, no
 * state, thread-safe.
 */
final class GeminiRequestWriter {

    /**
     * Google's documented stand-in for a thought signature Sluice does not have (the canonical model
     * carries none): Gemini 3 refuses a function call in the current turn without a signature, and
     * this value tells the validator to skip the check. Gemini 2.5 accepts and ignores it.
     */
    static final String SKIP_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

    /** Request extras this writer translates; every other extra is dropped (and reported). */
    static final Set<String> TRANSLATED_EXTRAS = Set.of("max_completion_tokens", "n", "response_format", "seed");

    /**
     * The translated request.
     *
     * @param body the Gemini request body as JSON-ready maps and lists
     * @param dropped names of request parameters that have no Gemini counterpart and were dropped
     */
    record Translation(Map<String, Object> body, List<String> dropped) {

        /**
         * The body as UTF-8 JSON.
         *
         * @return the bytes
         */
        byte[] bytes() {
            return Json.write(body).getBytes(StandardCharsets.UTF_8);
        }
    }

    private GeminiRequestWriter() {
    }

    /**
     * Translates a request.
     *
     * @param r the canonical request
     * @param includeThoughts whether to ask Gemini for thought summaries
     *     ({@code thinkingConfig.includeThoughts}); a connection setting, off by default because
     *     models without thinking refuse a thinking config
     * @return the translation
     */
    static Translation write(ChatRequest r, boolean includeThoughts) {
        Map<String, Object> body = new LinkedHashMap<>();
        List<Map<String, Object>> system = new ArrayList<>();
        List<Map<String, Object>> contents = new ArrayList<>();
        Map<String, String> toolNames = new HashMap<>();
        for (ChatMessage m : r.messages()) {
            switch (m.role()) {
                case SYSTEM, DEVELOPER -> {
                    for (ContentPart p : m.content()) {
                        if (p instanceof ContentPart.Text t && !t.text().isEmpty()) {
                            system.add(textPart(t.text()));
                        }
                    }
                }
                case USER -> append(contents, "user", contentParts(m.content()));
                case ASSISTANT -> {
                    List<Map<String, Object>> parts = contentParts(m.content());
                    boolean first = true;
                    for (ToolCall call : m.toolCalls()) {
                        toolNames.put(call.id(), call.name());
                        Map<String, Object> fc = new LinkedHashMap<>();
                        fc.put("name", call.name());
                        fc.put("args", arguments(call.argumentsJson()));
                        Map<String, Object> part = new LinkedHashMap<>();
                        part.put("functionCall", fc);
                        if (first) {
                            part.put("thoughtSignature", SKIP_THOUGHT_SIGNATURE);
                            first = false;
                        }
                        parts.add(part);
                    }
                    append(contents, "model", parts);
                }
                case TOOL -> {
                    String name = m.toolCallId() == null ? null : toolNames.get(m.toolCallId());
                    if (name == null) {
                        name = m.name() != null ? m.name() : m.toolCallId() != null ? m.toolCallId() : "unknown_function";
                    }
                    Map<String, Object> fr = new LinkedHashMap<>();
                    fr.put("name", name);
                    fr.put("response", toolResponse(m.textContent()));
                    append(contents, "user", List.of(Map.of("functionResponse", fr)));
                }
            }
        }
        if (!system.isEmpty()) {
            body.put("systemInstruction", Map.of("parts", system));
        }
        body.put("contents", contents);
        if (!r.tools().isEmpty()) {
            List<Object> declarations = new ArrayList<>();
            for (ToolDefinition t : r.tools()) {
                declarations.add(declaration(t));
            }
            body.put("tools", List.of(Map.of("functionDeclarations", declarations)));
            Map<String, Object> callingConfig = functionCallingConfig(r.toolChoiceJson());
            if (callingConfig != null) {
                body.put("toolConfig", Map.of("functionCallingConfig", callingConfig));
            }
        }
        Map<String, Object> generation = generationConfig(r, includeThoughts);
        if (!generation.isEmpty()) {
            body.put("generationConfig", generation);
        }
        List<String> dropped = new ArrayList<>(new TreeSet<>(r.extra().keySet()));
        dropped.removeAll(TRANSLATED_EXTRAS);
        return new Translation(body, List.copyOf(dropped));
    }

    // ---------------------------------------------------------------- contents

    /** Appends a content, merging it into the previous one of the same role (Gemini wants turns to alternate). */
    private static void append(List<Map<String, Object>> contents, String role, List<Map<String, Object>> parts) {
        if (parts.isEmpty()) {
            return; // Gemini refuses a content without parts
        }
        if (!contents.isEmpty()) {
            Map<String, Object> last = contents.get(contents.size() - 1);
            if (role.equals(last.get("role"))) {
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> lastParts = (List<Map<String, Object>>) last.get("parts");
                lastParts.addAll(parts);
                return;
            }
        }
        Map<String, Object> content = new LinkedHashMap<>();
        content.put("role", role);
        content.put("parts", new ArrayList<>(parts));
        contents.add(content);
    }

    private static List<Map<String, Object>> contentParts(List<ContentPart> content) {
        List<Map<String, Object>> parts = new ArrayList<>();
        for (ContentPart p : content) {
            switch (p) {
                case ContentPart.Text t -> {
                    if (!t.text().isEmpty()) {
                        parts.add(textPart(t.text()));
                    }
                }
                case ContentPart.Image img -> parts.add(MediaParts.part(img.url(), null));
                case ContentPart.Other other -> {
                    Map<String, Object> part = otherPart(other);
                    if (part != null) {
                        parts.add(part);
                    }
                }
            }
        }
        return parts;
    }

    private static Map<String, Object> textPart(String text) {
        Map<String, Object> part = new LinkedHashMap<>();
        part.put("text", text);
        return part;
    }

    /** OpenAI {@code input_audio} and {@code file} parts (with inline data); other part types have no Gemini form. */
    private static Map<String, Object> otherPart(ContentPart.Other other) {
        Object json;
        try {
            json = Json.parse(other.json());
        } catch (JsonException e) {
            return null;
        }
        if (other.type().equals("input_audio")) {
            Map<String, Object> audio = Json.object(json, "input_audio");
            String data = Json.string(audio, "data");
            if (data == null) {
                return null;
            }
            String format = Json.string(audio, "format");
            Map<String, Object> inline = new LinkedHashMap<>();
            inline.put("mimeType", "audio/" + (format == null ? "wav" : format.toLowerCase(Locale.ROOT)));
            inline.put("data", data);
            return Map.of("inlineData", inline);
        }
        if (other.type().equals("file")) {
            String data = Json.string(Json.object(json, "file"), "file_data");
            if (data != null && data.regionMatches(true, 0, "data:", 0, 5)) {
                return MediaParts.part(data, null);
            }
        }
        return null;
    }

    private static Object arguments(String argumentsJson) {
        if (argumentsJson == null || argumentsJson.isBlank()) {
            return new LinkedHashMap<>();
        }
        try {
            Object v = Json.parse(argumentsJson);
            // Gemini's args is a Struct: anything else (or broken JSON from another model) cannot be sent
            return v instanceof Map ? v : new LinkedHashMap<>();
        } catch (JsonException e) {
            return new LinkedHashMap<>();
        }
    }

    /** A tool result: a JSON object as it is, anything else as {@code {"output": text}}. */
    private static Object toolResponse(String text) {
        String s = text.strip();
        if (s.startsWith("{")) {
            try {
                return Json.parseObject(s);
            } catch (JsonException e) {
                // not JSON after all: sent as text below
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("output", text);
        return out;
    }

    // ---------------------------------------------------------------- tools

    private static Map<String, Object> declaration(ToolDefinition t) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("name", t.name());
        if (t.description() != null && !t.description().isEmpty()) {
            d.put("description", t.description());
        }
        if (t.parametersJson() != null) {
            Map<String, Object> params;
            try {
                params = SchemaSanitizer.sanitizeParameters(Json.parseObject(t.parametersJson()));
            } catch (JsonException e) {
                params = null;
            }
            if (params != null) {
                d.put("parameters", params);
            }
        }
        return d;
    }

    /** OpenAI {@code tool_choice} → {@code functionCallingConfig}; null leaves Gemini's default (AUTO). */
    static Map<String, Object> functionCallingConfig(String toolChoiceJson) {
        if (toolChoiceJson == null) {
            return null;
        }
        Object choice;
        try {
            choice = Json.parse(toolChoiceJson);
        } catch (JsonException e) {
            return null;
        }
        Map<String, Object> config = new LinkedHashMap<>();
        if (choice instanceof String s) {
            switch (s) {
                case "auto" -> config.put("mode", "AUTO");
                case "none" -> config.put("mode", "NONE");
                case "required", "any" -> config.put("mode", "ANY");
                default -> {
                    return null;
                }
            }
            return config;
        }
        String type = Json.string(choice, "type");
        if ("function".equals(type)) {
            String name = Json.string(Json.object(choice, "function"), "name");
            if (name == null) {
                name = Json.string(choice, "name");
            }
            if (name == null) {
                return null;
            }
            config.put("mode", "ANY");
            config.put("allowedFunctionNames", List.of(name));
            return config;
        }
        if ("allowed_tools".equals(type)) {
            Map<String, Object> allowed = Json.object(choice, "allowed_tools");
            if ("required".equals(Json.string(allowed, "mode"))) {
                List<Object> names = new ArrayList<>();
                for (Object tool : Json.array(allowed, "tools")) {
                    String name = Json.string(Json.object(tool, "function"), "name");
                    if (name != null) {
                        names.add(name);
                    }
                }
                config.put("mode", "ANY");
                if (!names.isEmpty()) {
                    config.put("allowedFunctionNames", names);
                }
                return config;
            }
            config.put("mode", "AUTO");
            return config;
        }
        return null;
    }

    // ---------------------------------------------------------------- generation config

    private static Map<String, Object> generationConfig(ChatRequest r, boolean includeThoughts) {
        Map<String, Object> g = new LinkedHashMap<>();
        Long maxTokens = r.maxTokens() != null ? Long.valueOf(r.maxTokens()) : integerExtra(r, "max_completion_tokens");
        if (maxTokens != null) {
            g.put("maxOutputTokens", maxTokens);
        }
        if (r.temperature() != null) {
            g.put("temperature", r.temperature());
        }
        if (r.topP() != null) {
            g.put("topP", r.topP());
        }
        if (!r.stop().isEmpty()) {
            g.put("stopSequences", r.stop());
        }
        Long n = integerExtra(r, "n");
        if (n != null) {
            g.put("candidateCount", n);
        }
        Long seed = integerExtra(r, "seed");
        if (seed != null) {
            g.put("seed", seed);
        }
        String responseFormat = r.extra().get("response_format");
        if (responseFormat != null) {
            Object format;
            try {
                format = Json.parse(responseFormat);
            } catch (JsonException e) {
                format = null;
            }
            String type = Json.string(format, "type");
            if ("json_object".equals(type)) {
                g.put("responseMimeType", "application/json");
            } else if ("json_schema".equals(type)) {
                g.put("responseMimeType", "application/json");
                Map<String, Object> schema = Json.object(Json.object(format, "json_schema"), "schema");
                if (schema != null) {
                    Map<String, Object> converted = SchemaSanitizer.sanitize(schema);
                    if (!converted.isEmpty()) {
                        g.put("responseSchema", converted);
                    }
                }
            }
        }
        if (includeThoughts) {
            g.put("thinkingConfig", Map.of("includeThoughts", Boolean.TRUE));
        }
        return g;
    }

    private static Long integerExtra(ChatRequest r, String name) {
        String raw = r.extra().get(name);
        if (raw == null) {
            return null;
        }
        try {
            return Json.parse(raw) instanceof Number num ? num.longValue() : null;
        } catch (JsonException e) {
            return null;
        }
    }
}
