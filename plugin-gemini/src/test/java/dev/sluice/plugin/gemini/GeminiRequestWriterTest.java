package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import static dev.sluice.plugin.gemini.Fakes.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Canonical request → Gemini GenerateContentRequest, checked against golden files. */
class GeminiRequestWriterTest {

    private static ChatRequest request(List<ChatMessage> messages) {
        return new ChatRequest("gemini-2.5-flash", messages, List.of(), null, false, null, null, null, List.of(), Map.of());
    }

    /** The written body, parsed back, so the comparison ignores formatting and member order. */
    private static Object written(ChatRequest r) {
        byte[] bytes = GeminiRequestWriter.write(r, false).bytes();
        return Json.parse(new String(bytes, StandardCharsets.UTF_8));
    }

    private static ChatMessage user(List<ContentPart> parts) {
        return new ChatMessage(Role.USER, parts, null, List.of(), null, null);
    }

    @Test
    void systemAndDeveloperMessagesBecomeTheSystemInstructionAndRolesAlternate() {
        ChatRequest r = request(List.of(
                ChatMessage.text(Role.SYSTEM, "You are a terse assistant."),
                ChatMessage.text(Role.DEVELOPER, "Answer in English."),
                ChatMessage.text(Role.USER, "Hi"),
                new ChatMessage(Role.ASSISTANT, List.of(new ContentPart.Text("Hello! How can I help?")), "bot", List.of(),
                        null, "some earlier reasoning"),
                ChatMessage.text(Role.USER, "What is 2+2?"),
                ChatMessage.text(Role.USER, "Be brief."),
                ChatMessage.text(Role.ASSISTANT, "4"),
                ChatMessage.text(Role.SYSTEM, "A late system note."),
                ChatMessage.text(Role.USER, ""),
                ChatMessage.text(Role.USER, "Thanks")));
        assertThat(written(r)).isEqualTo(Json.parse(golden("request-conversation.json")));
    }

    @Test
    void imagesAudioAndFilesBecomeInlineDataOrFileData() {
        ChatRequest r = request(List.of(user(List.of(
                new ContentPart.Text("Compare these."),
                new ContentPart.Image("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "high"),
                new ContentPart.Image("https://example.com/images/cat.JPG?size=large", "low"),
                new ContentPart.Image("data:;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHR", null),
                new ContentPart.Image("https://generativelanguage.googleapis.com/v1beta/files/abc123", null),
                new ContentPart.Image("data:text/plain,hello%20world", null),
                new ContentPart.Other("input_audio",
                        "{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU4Ljc2LjEwMAAAAAAAAAAAAAAA\",\"format\":\"mp3\"}}"),
                new ContentPart.Other("file",
                        "{\"type\":\"file\",\"file\":{\"filename\":\"a.pdf\",\"file_data\":\"data:application/pdf;base64,JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSL0ZpbHRlci9GbGF0ZURlY29kZT4+\"}}"),
                new ContentPart.Other("file", "{\"type\":\"file\",\"file\":{\"file_id\":\"file-123\"}}"),
                new ContentPart.Other("refusal", "{\"type\":\"refusal\",\"refusal\":\"no\"}")))));
        assertThat(written(r)).isEqualTo(Json.parse(golden("request-images.json")));
    }

    @Test
    void toolsCallsAndResultsTranslateWithFunctionNamesLookedUpById() {
        String weatherSchema = """
                {"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false,
                 "properties":{"city":{"type":"string","description":"City name","minLength":1},
                   "unit":{"type":["string","null"],"enum":["celsius","fahrenheit"],"default":"celsius"},
                   "source":{"type":"string","format":"uri"},
                   "days":{"type":"integer","minimum":1,"maximum":7,"exclusiveMaximum":8,"format":"int32"}},
                 "required":["city","ghost"]}
                """;
        List<ToolDefinition> tools = List.of(
                new ToolDefinition("get_weather", "Current weather for a city", weatherSchema, Map.of("strict", "true")),
                new ToolDefinition("get_time", "Current time", "{\"type\":\"object\",\"properties\":{}}"));
        List<ChatMessage> messages = List.of(
                ChatMessage.text(Role.USER, "What's the weather in Paris and Rome?"),
                new ChatMessage(Role.ASSISTANT, List.of(new ContentPart.Text("Let me check both.")), null, List.of(
                        new ToolCall("call_a", "get_weather", "{\"city\":\"Paris\",\"days\":2}"),
                        new ToolCall("call_b", "get_weather", "{\"city\": \"Rome\"}")), null, null),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("{\"temp_c\": 21, \"sky\": \"cloudy\"}")), null,
                        List.of(), "call_a", null),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("sunny, 25C")), null, List.of(), "call_b", null),
                ChatMessage.text(Role.USER, "And what time is it in Tokyo?"),
                // the same id again in a later turn: the most recent call with that id names the function
                new ChatMessage(Role.ASSISTANT, List.of(), null, List.of(new ToolCall("call_a", "get_time", "")), null, null),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("[\"not\", \"an object\"]")), null, List.of(),
                        "call_a", null));
        ChatRequest r = new ChatRequest("gemini-2.5-pro", messages, tools,
                "{\"type\":\"function\",\"function\":{\"name\":\"get_time\"}}", false, null, null, null, List.of(), Map.of());
        assertThat(written(r)).isEqualTo(Json.parse(golden("request-tools.json")));
    }

    @Test
    void aToolResultWhoseCallIsUnknownFallsBackToTheMessageName() {
        ChatRequest r = request(List.of(
                ChatMessage.text(Role.USER, "go"),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("42")), "legacy_fn", List.of(), "call_zzz", null),
                new ChatMessage(Role.TOOL, List.of(new ContentPart.Text("43")), null, List.of(), "call_yyy", null)));
        assertThat(written(r)).isEqualTo(Json.parse("""
                {"contents":[{"role":"user","parts":[{"text":"go"},
                  {"functionResponse":{"name":"legacy_fn","response":{"output":"42"}}},
                  {"functionResponse":{"name":"call_yyy","response":{"output":"43"}}}]}]}
                """));
    }

    @Test
    void brokenToolCallArgumentsAreSentAsAnEmptyObject() {
        ChatRequest r = request(List.of(ChatMessage.text(Role.USER, "go"),
                new ChatMessage(Role.ASSISTANT, List.of(), null, List.of(new ToolCall("c1", "f", "{\"a\":"),
                        new ToolCall("c2", "g", "[1,2]")), null, null)));
        assertThat(written(r)).isEqualTo(Json.parse("""
                {"contents":[{"role":"user","parts":[{"text":"go"}]},
                  {"role":"model","parts":[{"functionCall":{"name":"f","args":{}},"thoughtSignature":"skip_thought_signature_validator"},
                                           {"functionCall":{"name":"g","args":{}}}]}]}
                """));
    }

    @Test
    void toolChoiceVariantsMapToFunctionCallingModes() {
        assertThat(GeminiRequestWriter.functionCallingConfig("\"auto\"")).isEqualTo(Map.of("mode", "AUTO"));
        assertThat(GeminiRequestWriter.functionCallingConfig("\"none\"")).isEqualTo(Map.of("mode", "NONE"));
        assertThat(GeminiRequestWriter.functionCallingConfig("\"required\"")).isEqualTo(Map.of("mode", "ANY"));
        assertThat(GeminiRequestWriter.functionCallingConfig("{\"type\":\"function\",\"function\":{\"name\":\"f\"}}"))
                .isEqualTo(Map.of("mode", "ANY", "allowedFunctionNames", List.of("f")));
        assertThat(GeminiRequestWriter.functionCallingConfig("""
                {"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"a"}},
                 {"type":"function","function":{"name":"b"}}]}}
                """)).isEqualTo(Map.of("mode", "ANY", "allowedFunctionNames", List.of("a", "b")));
        assertThat(GeminiRequestWriter.functionCallingConfig("{\"type\":\"allowed_tools\",\"allowed_tools\":{\"mode\":\"auto\"}}"))
                .isEqualTo(Map.of("mode", "AUTO"));
        assertThat(GeminiRequestWriter.functionCallingConfig(null)).isNull();
        assertThat(GeminiRequestWriter.functionCallingConfig("\"whatever\"")).isNull();
        assertThat(GeminiRequestWriter.functionCallingConfig("{\"type\":\"function\"}")).isNull();
        assertThat(GeminiRequestWriter.functionCallingConfig("not json")).isNull();
    }

    @Test
    void noToolsMeansNoToolConfigEvenWithAToolChoice() {
        ChatRequest r = new ChatRequest("m", List.of(ChatMessage.text(Role.USER, "x")), List.of(), "\"none\"", false,
                null, null, null, List.of(), Map.of());
        assertThat(written(r)).isEqualTo(Json.parse("{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"x\"}]}]}"));
    }

    @Test
    void generationConfigCarriesSamplingLimitsStopsCandidatesSeedAndJsonSchema() {
        Map<String, String> extra = Map.of(
                "n", "2",
                "seed", "7",
                "response_format", """
                        {"type":"json_schema","json_schema":{"name":"colours","strict":true,"schema":{"type":"object",
                         "additionalProperties":false,"properties":{"colours":{"type":"array","items":{"type":"string"},
                         "maxItems":2}},"required":["colours"]}}}""",
                "logit_bias", "{\"50256\":-100}",
                "presence_penalty", "0.5",
                "user", "\"u-1\"",
                "stream_options", "{\"include_usage\":true}");
        ChatRequest r = new ChatRequest("gemini-2.5-flash", List.of(ChatMessage.text(Role.USER, "List two colours as JSON.")),
                List.of(), null, false, 256, 0.2, 0.9, List.of("END", "STOP HERE"), extra);
        GeminiRequestWriter.Translation t = GeminiRequestWriter.write(r, false);
        assertThat(Json.parse(new String(t.bytes(), StandardCharsets.UTF_8)))
                .isEqualTo(Json.parse(golden("request-generation-config.json")));
        assertThat(t.dropped()).containsExactly("logit_bias", "presence_penalty", "stream_options", "user");
    }

    @Test
    void maxCompletionTokensJsonObjectAndIncludeThoughts() {
        ChatRequest r = new ChatRequest("gemini-2.5-flash", List.of(ChatMessage.text(Role.USER, "x")), List.of(), null, true,
                null, null, null, List.of(), Map.of("max_completion_tokens", "1000",
                "response_format", "{\"type\":\"json_object\"}"));
        Object body = Json.parse(new String(GeminiRequestWriter.write(r, true).bytes(), StandardCharsets.UTF_8));
        assertThat(Json.object(body, "generationConfig")).isEqualTo(Map.of("maxOutputTokens", 1000L,
                "responseMimeType", "application/json", "thinkingConfig", Map.of("includeThoughts", true)));
    }

    @Test
    void maxTokensWinsOverMaxCompletionTokensAndTextFormatAddsNothing() {
        ChatRequest r = new ChatRequest("m", List.of(ChatMessage.text(Role.USER, "x")), List.of(), null, false,
                50, null, null, List.of(), Map.of("max_completion_tokens", "1000", "response_format", "{\"type\":\"text\"}"));
        Object body = Json.parse(new String(GeminiRequestWriter.write(r, false).bytes(), StandardCharsets.UTF_8));
        assertThat(Json.object(body, "generationConfig")).isEqualTo(Map.of("maxOutputTokens", 50L));
    }

    @Test
    void stringsAreEscapedInTheBody() {
        ChatRequest r = request(List.of(ChatMessage.text(Role.USER, "quote \" backslash \\ newline \n tab \t ünï 😀")));
        String body = new String(GeminiRequestWriter.write(r, false).bytes(), StandardCharsets.UTF_8);
        assertThat(body).contains("quote \\\" backslash \\\\ newline \\n tab \\t ünï 😀");
        assertThat(Json.string(((List<?>) Json.get(((List<?>) Json.get(Json.parse(body), "contents")).get(0), "parts"))
                .get(0), "text")).isEqualTo("quote \" backslash \\ newline \n tab \t ünï 😀");
    }
}
