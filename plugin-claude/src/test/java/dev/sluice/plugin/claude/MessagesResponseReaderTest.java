package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.Usage;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Anthropic Messages answer → canonical answer, against golden files (API-3, issue 3). */
class MessagesResponseReaderTest {

    private static final long NOW = 1_767_225_600L;
    private final MessagesResponseReader reader = new MessagesResponseReader(InstantSource.fixed(Instant.ofEpochSecond(NOW)));

    @Test
    void textBlocksAreConcatenated_golden() throws Exception {
        ChatResponse r = reader.read(Golden.read("response/text.json"));
        assertThat(r).isEqualTo(new ChatResponse("msg_01XFDUDYJgAACzvnptvVoYEL", "claude-sonnet-4-5-20250929", NOW,
                List.of(new Choice(0, ChatMessage.text(Role.ASSISTANT, "Hello! How can I help?"), "stop")),
                new Usage(12, 9, 21), Map.of()));
    }

    @Test
    void toolUseBlocksBecomeToolCallsWithTheInputAsJsonText_golden() throws Exception {
        ChatResponse r = reader.read(Golden.read("response/tool_use.json"));
        ChatMessage m = r.choices().get(0).message();
        assertThat(m.textContent()).isEqualTo("I'll check the weather in both cities.");
        assertThat(m.toolCalls()).containsExactly(
                new ToolCall("toolu_01A09q90qw90lq917835lq9", "get_weather", "{\"city\":\"Paris\",\"unit\":\"celsius\"}"),
                new ToolCall("toolu_01B7vJ3bYcXzqHjT1mFp2kQe", "get_weather", "{\"city\":\"Rome\",\"days\":[1,2]}"),
                new ToolCall("toolu_01NoArgs", "get_time", "{}"));
        assertThat(r.choices().get(0).finishReason()).isEqualTo("tool_calls");
        assertThat(r.usage()).isEqualTo(new Usage(472, 120, 592));
    }

    @Test
    void thinkingBecomesReasoningContentAndTheSignedBlocksAreKept_golden() throws Exception {
        ChatResponse r = reader.read(Golden.read("response/thinking.json"));
        ChatMessage m = r.choices().get(0).message();
        assertThat(m.reasoningContent()).isEqualTo("The user wants 27 * 453. 27*453 = 12231.");
        assertThat(m.content()).containsExactly(new ContentPart.Text("27 × 453 = 12,231."));
        assertThat(Json.parse(m.extra().get(MessagesResponseReader.THINKING_BLOCKS))).isEqualTo(Json.parse(
                "[{\"type\":\"thinking\",\"thinking\":\"The user wants 27 * 453. 27*453 = 12231.\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"},"
                        + "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP\"}]"));
        assertThat(r.model()).isEqualTo("claude-opus-4-1-20250805");
    }

    @Test
    void cachedInputCountsAsPromptTokensAndStaysVisibleInUsageExtra_golden() throws Exception {
        ChatResponse r = reader.read(Golden.read("response/cache_usage.json"));
        Usage u = r.usage();
        assertThat(u.promptTokens()).isEqualTo(21 + 188086 + 1500);
        assertThat(u.completionTokens()).isEqualTo(393);
        assertThat(u.totalTokens()).isEqualTo(21 + 188086 + 1500 + 393);
        assertThat(u.extra()).containsOnlyKeys("prompt_tokens_details", "cache_read_input_tokens", "cache_creation_input_tokens");
        assertThat(Json.parse(u.extra().get("prompt_tokens_details"))).isEqualTo(Map.of("cached_tokens", 1500L));
        assertThat(u.extra().get("cache_read_input_tokens")).isEqualTo("1500");
        assertThat(u.extra().get("cache_creation_input_tokens")).isEqualTo("188086");
        // server-side tool blocks have no canonical form and are left out
        assertThat(r.choices().get(0).message()).isEqualTo(new ChatMessage(Role.ASSISTANT, List.of(new ContentPart.Text("Done.")),
                null, List.of(), null, null));
        assertThat(r.choices().get(0).finishReason()).isEqualTo("length");
    }

    @ParameterizedTest(name = "stop_reason {0} → finish_reason {1}")
    @CsvSource({"end_turn,stop", "stop_sequence,stop", "max_tokens,length", "tool_use,tool_calls", "refusal,content_filter",
            "pause_turn,stop", "model_context_window_exceeded,length", "some_future_reason,stop"})
    void stopReasonsMapToFinishReasons(String stopReason, String finishReason) throws Exception {
        ChatResponse r = reader.read("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"stop_reason\":\"" + stopReason + "\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}");
        assertThat(r.choices().get(0).finishReason()).isEqualTo(finishReason);
    }

    @Test
    void aMissingStopReasonAndUsageStayNull() throws Exception {
        ChatResponse r = reader.read("{\"id\":\"msg_1\",\"type\":\"message\",\"model\":\"m\",\"content\":[],\"stop_reason\":null}");
        assertThat(r.choices().get(0).finishReason()).isNull();
        assertThat(r.usage()).isNull();
        assertThat(r.choices().get(0).message().content()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "not json", "[]", "{\"type\":\"message\"}", "{\"object\":\"chat.completion\",\"choices\":[]}",
            "{\"type\":\"completion\",\"content\":[]}", "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"input\":{}}]}"})
    void aBodyThatIsNotAMessagesAnswerIsRefused(String body) {
        assertThatThrownBy(() -> reader.read(body)).isInstanceOf(MalformedAnswerException.class);
    }

    @Test
    void anErrorBodyWithA2xxStatusIsRefusedNamingTheError() {
        assertThatThrownBy(() -> reader.read("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"))
                .isInstanceOf(MalformedAnswerException.class).hasMessageContaining("overloaded_error").hasMessageContaining("Overloaded");
    }
}
