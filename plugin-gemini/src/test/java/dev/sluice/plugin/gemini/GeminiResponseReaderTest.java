package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import static dev.sluice.plugin.gemini.Fakes.golden;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.Choice;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.Usage;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Gemini GenerateContentResponse → canonical answer, from golden files. */
class GeminiResponseReaderTest {

    private static final long CREATED = 1_750_000_000L;

    private static ChatResponse read(String golden) {
        return GeminiResponseReader.read(golden(golden), "gemini-2.5-flash", CREATED, new Fakes.CountingIds());
    }

    @Test
    void textPartsAreConcatenatedAndIdModelAndUsageCarriedOver() {
        ChatResponse r = read("response-text.json");
        assertThat(r.id()).isEqualTo("mN1yaJ3bFuqvz7IPiK6QsA0");
        assertThat(r.model()).isEqualTo("gemini-2.5-flash");
        assertThat(r.created()).isEqualTo(CREATED);
        assertThat(r.choices()).hasSize(1);
        Choice c = r.choices().get(0);
        assertThat(c.index()).isZero();
        assertThat(c.message().role()).isEqualTo(Role.ASSISTANT);
        assertThat(c.message().content()).containsExactly(new ContentPart.Text("The capital of France is Paris."));
        assertThat(c.message().toolCalls()).isEmpty();
        assertThat(c.message().reasoningContent()).isNull();
        assertThat(c.finishReason()).isEqualTo("stop");
        assertThat(c.extra()).isEmpty();
        assertThat(r.usage()).isEqualTo(new Usage(9, 7, 16));
    }

    @Test
    void thoughtPartsBecomeReasoningAndThinkingTokensCountAsReasoningTokens() {
        ChatResponse r = read("response-thoughts.json");
        assertThat(r.model()).isEqualTo("gemini-2.5-pro");
        Choice c = r.choices().get(0);
        assertThat(c.message().reasoningContent()).isEqualTo("**Calculating the sum**\n\nThe user wants 17 + 25. That is 42.");
        assertThat(c.message().textContent()).isEqualTo("17 + 25 = 42");
        assertThat(r.usage().promptTokens()).isEqualTo(12);
        assertThat(r.usage().completionTokens()).isEqualTo(8 + 125);
        assertThat(r.usage().totalTokens()).isEqualTo(145);
        assertThat(r.usage().extra()).containsOnly(
                Map.entry("completion_tokens_details", "{\"reasoning_tokens\":125}"),
                Map.entry("prompt_tokens_details", "{\"cached_tokens\":4}"));
    }

    @Test
    void functionCallsBecomeToolCallsWithGeneratedIdsAndFinishToolCalls() {
        ChatResponse r = read("response-function-calls.json");
        assertThat(r.id()).isEqualTo("resp-1");
        Choice c = r.choices().get(0);
        assertThat(c.message().textContent()).isEqualTo("Checking both cities.");
        assertThat(c.message().toolCalls()).hasSize(3);
        ToolCall first = c.message().toolCalls().get(0);
        assertThat(first.id()).isEqualTo("call_1");
        assertThat(first.name()).isEqualTo("get_weather");
        assertThat(Json.parse(first.argumentsJson()))
                .isEqualTo(Json.parse("{\"city\":\"Paris\",\"unit\":\"celsius\",\"days\":2,\"detail\":{\"hourly\":false}}"));
        assertThat(c.message().toolCalls().get(1)).isEqualTo(new ToolCall("call_2", "get_weather", "{\"city\":\"Rome\"}"));
        assertThat(c.message().toolCalls().get(2)).isEqualTo(new ToolCall("call_3", "get_time", "{}"));
        assertThat(c.finishReason()).isEqualTo("tool_calls");
        assertThat(r.usage()).isEqualTo(new Usage(120, 40, 160));
    }

    @Test
    void anIdGeminiSendsWithAFunctionCallIsKept() {
        ChatResponse r = GeminiResponseReader.read("""
                {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"fc-77","name":"f","args":{"a":1}}}]},
                 "finishReason":"STOP"}]}""", "m", CREATED, new Fakes.CountingIds());
        assertThat(r.choices().get(0).message().toolCalls()).containsExactly(new ToolCall("fc-77", "f", "{\"a\":1}"));
    }

    @Test
    void aSafetyBlockedCandidateIsAnEmptyContentFilterChoice() {
        ChatResponse r = read("response-safety.json");
        Choice c = r.choices().get(0);
        assertThat(c.message().content()).isEmpty();
        assertThat(c.finishReason()).isEqualTo("content_filter");
        assertThat(c.extra()).containsExactly(Map.entry("native_finish_reason", "\"SAFETY\""));
        assertThat(r.usage()).isEqualTo(new Usage(11, 0, 11));
    }

    @Test
    void aBlockedPromptIsAClearContentFilterAnswerNotAnError() {
        ChatResponse r = read("response-prompt-blocked.json");
        assertThat(r.id()).isEqualTo("prompt-blocked-1");
        assertThat(r.choices()).hasSize(1);
        Choice c = r.choices().get(0);
        assertThat(c.index()).isZero();
        assertThat(c.message().role()).isEqualTo(Role.ASSISTANT);
        assertThat(c.message().content()).isEmpty();
        assertThat(c.message().toolCalls()).isEmpty();
        assertThat(c.finishReason()).isEqualTo("content_filter");
        assertThat(c.extra()).containsExactly(Map.entry("native_finish_reason", "\"PROHIBITED_CONTENT\""));
        assertThat(r.usage()).isEqualTo(new Usage(30, 0, 30));
    }

    @Test
    void everyCandidateBecomesAChoiceWithItsOwnFinishReason() {
        ChatResponse r = read("response-candidates.json");
        assertThat(r.model()).as("no modelVersion: the requested model").isEqualTo("gemini-2.5-flash");
        assertThat(r.id()).isEqualTo("resp-1");
        assertThat(r.choices()).extracting(Choice::index).containsExactly(0, 1, 2);
        assertThat(r.choices()).extracting(c -> c.message().textContent())
                .containsExactly("Roses are red", "Violets are", "Sugar is");
        assertThat(r.choices()).extracting(Choice::finishReason).containsExactly("stop", "length", "content_filter");
        assertThat(r.choices().get(2).extra()).containsExactly(Map.entry("native_finish_reason", "\"RECITATION\""));
    }

    @ParameterizedTest
    @CsvSource({
            "STOP, false, stop, ",
            "STOP, true, tool_calls, ",
            "MAX_TOKENS, false, length, ",
            "MAX_TOKENS, true, length, ",
            "SAFETY, false, content_filter, SAFETY",
            "RECITATION, false, content_filter, RECITATION",
            "BLOCKLIST, false, content_filter, BLOCKLIST",
            "PROHIBITED_CONTENT, false, content_filter, PROHIBITED_CONTENT",
            "SPII, false, content_filter, SPII",
            "IMAGE_SAFETY, false, content_filter, IMAGE_SAFETY",
            "MALFORMED_FUNCTION_CALL, false, stop, MALFORMED_FUNCTION_CALL",
            "UNEXPECTED_TOOL_CALL, false, stop, UNEXPECTED_TOOL_CALL",
            "LANGUAGE, false, stop, LANGUAGE",
            "OTHER, false, stop, OTHER",
            "FINISH_REASON_UNSPECIFIED, false, stop, FINISH_REASON_UNSPECIFIED",
            "SOMETHING_NEW, false, stop, SOMETHING_NEW",
    })
    void finishReasonsMapToOpenAiOnesAndKeepTheNativeOneWhenLossy(String gemini, boolean toolCalls, String expected,
            String nativeKept) {
        assertThat(FinishReasons.map(gemini, toolCalls)).isEqualTo(expected);
        assertThat(FinishReasons.nativeExtra(gemini))
                .isEqualTo(nativeKept == null ? Map.of() : Map.of("native_finish_reason", "\"" + nativeKept + "\""));
    }

    @Test
    void aMalformedFunctionCallIsAStopWithTheNativeReason() {
        ChatResponse r = GeminiResponseReader.read("""
                {"candidates":[{"content":{"parts":[]},"finishReason":"MALFORMED_FUNCTION_CALL",
                 "finishMessage":"Malformed function call: print(default_api.f(x=))"}],"responseId":"r"}""",
                "m", CREATED, new Fakes.CountingIds());
        Choice c = r.choices().get(0);
        assertThat(c.finishReason()).isEqualTo("stop");
        assertThat(c.extra()).containsExactly(Map.entry("native_finish_reason", "\"MALFORMED_FUNCTION_CALL\""));
        assertThat(c.message().content()).isEmpty();
    }

    @Test
    void usageWithoutTotalIsSummedAndMissingUsageIsNull() {
        assertThat(UsageReader.read(Map.of("promptTokenCount", 3L, "candidatesTokenCount", 4L, "toolUsePromptTokenCount", 2L)))
                .isEqualTo(new Usage(5, 4, 9));
        assertThat(UsageReader.read(null)).isNull();
        ChatResponse r = GeminiResponseReader.read("{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"x\"}]}}]}", "m",
                CREATED, new Fakes.CountingIds());
        assertThat(r.usage()).isNull();
        assertThat(r.choices().get(0).finishReason()).as("a complete answer without a finish reason stopped").isEqualTo("stop");
    }

    @Test
    void aBodyThatIsNotAGenerateContentResponseIsRefused() {
        for (String body : List.of("", "not json", "[]", "{}", "{\"candidates\":[]}", "{\"usageMetadata\":{}}",
                "{\"error\":{\"code\":500,\"status\":\"INTERNAL\",\"message\":\"boom\"}}")) {
            assertThatThrownBy(() -> GeminiResponseReader.read(body, "m", CREATED, new Fakes.CountingIds()))
                    .as(body).isInstanceOf(UnexpectedAnswerException.class);
        }
    }
}
