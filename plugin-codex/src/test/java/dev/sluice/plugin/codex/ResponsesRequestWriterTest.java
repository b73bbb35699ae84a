package dev.sluice.plugin.codex;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolDefinition;
import dev.sluice.toolkit.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Chat requests written as the Responses body Codex sends to the ChatGPT backend. */
class ResponsesRequestWriterTest {

    @Test
    void toolsBecomeFunctionsAndANamedToolChoiceLosesItsFunctionWrapper() {
        ChatRequest request = ChatRequest.builder("gpt-5", List.of(ChatMessage.text(Role.DEVELOPER, "Use tools."),
                        ChatMessage.builder(Role.USER).content(List.of(new ContentPart.Text("Look:"),
                                new ContentPart.Image("https://img.example/a.png", "low"))).build()))
                .tools(List.of(new ToolDefinition("lookup", "Looks up", "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}",
                        Map.of())))
                .toolChoiceJson("{\"type\":\"function\",\"function\":{\"name\":\"lookup\"}}")
                .extra(Map.of("reasoning_effort", "\"high\"", "parallel_tool_calls", "false"))
                .temperature(0.2).maxTokens(10).build();

        ResponsesRequestWriter.Translation t = ResponsesRequestWriter.write(request);

        assertThat(Json.parse(new String(t.bytes(), StandardCharsets.UTF_8))).isEqualTo(Json.parse("""
                {"model":"gpt-5","instructions":"",
                 "input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"Use tools."}]},
                          {"type":"message","role":"user","content":[{"type":"input_text","text":"Look:"},
                              {"type":"input_image","image_url":"https://img.example/a.png","detail":"low"}]}],
                 "tools":[{"type":"function","name":"lookup","description":"Looks up",
                           "parameters":{"type":"object","properties":{"q":{"type":"string"}}},"strict":false}],
                 "tool_choice":{"type":"function","name":"lookup"},"parallel_tool_calls":false,
                 "reasoning":{"effort":"high","summary":"auto"},"include":["reasoning.encrypted_content"],
                 "store":false,"stream":true}"""));
        assertThat(t.dropped()).containsExactly("max_tokens", "temperature");
    }
}
