package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SseEventsTest {

    @Test
    void openAiFramesAreDataLinesOfChatCompletionChunks() {
        assertThat(SseEvents.openAiDelta("say \"hi\"\n")).isEqualTo("data: {\"id\":\"chatcmpl-mock\","
                + "\"object\":\"chat.completion.chunk\",\"created\":1767225600,\"model\":\"mock-model\","
                + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"say \\\"hi\\\"\\n\"},\"finish_reason\":null}]}\n\n");
        assertThat(SseEvents.openAiRole()).contains("\"delta\":{\"role\":\"assistant\",\"content\":\"\"}");
        assertThat(SseEvents.openAiReasoning("hmm")).contains("\"delta\":{\"reasoning_content\":\"hmm\"},\"finish_reason\":null");
        assertThat(SseEvents.openAiFinish("length")).startsWith("data: {").endsWith("}\n\n")
                .contains("\"delta\":{},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":3,");
        assertThat(SseEvents.DONE).isEqualTo("data: [DONE]\n\n");
    }

    @Test
    void anthropicFramesNameTheirEventTypeTwice() {
        assertThat(SseEvents.ping()).isEqualTo("event: ping\ndata: {\"type\":\"ping\"}\n\n");
        assertThat(SseEvents.messageStart("claude-x")).startsWith("event: message_start\ndata: {\"type\":\"message_start\",")
                .contains("\"model\":\"claude-x\"", "\"role\":\"assistant\"");
        assertThat(SseEvents.thinkingBlockStart(0)).isEqualTo("event: content_block_start\ndata: {\"type\":\"content_block_start\","
                + "\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n");
        assertThat(SseEvents.textBlockStart(1)).contains("\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}");
        assertThat(SseEvents.textDelta(1, "a\tb")).isEqualTo("event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
                + "\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\\tb\"}}\n\n");
        assertThat(SseEvents.thinkingDelta(0, "")).contains("\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"\"}");
        assertThat(SseEvents.contentBlockStop(1)).isEqualTo(
                "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n");
        assertThat(SseEvents.messageDelta("end_turn")).startsWith("event: message_delta\n")
                .contains("\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null}");
        assertThat(SseEvents.messageStop()).isEqualTo("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    }

    @Test
    void genericFramesKeepTheirPayloadOnOneLine() {
        assertThat(SseEvents.data("{}")).isEqualTo("data: {}\n\n");
        assertThat(SseEvents.event("error", "{}")).isEqualTo("event: error\ndata: {}\n\n");
        assertThat(SseEvents.comment("keep-alive")).isEqualTo(": keep-alive\n\n");
        assertThatThrownBy(() -> SseEvents.data("a\nb")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SseEvents.event("a\r", "{}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SseEvents.textDelta(-1, "x")).isInstanceOf(IllegalArgumentException.class);
    }
}
