package dev.sluice.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.chat.Usage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pieces of issue 18's telemetry that need no server: usage shapes, label caps, the rotating file. */
class TelemetryTest {

    @TempDir
    Path dir;

    @Test
    void canonicalUsageKeepsCachedAndReasoningDetails_issue18() {
        Usage u = new Usage(20, 9, 29, Map.of("prompt_tokens_details", "{\"cached_tokens\":4}",
                "completion_tokens_details", "{\"reasoning_tokens\":2}"));
        assertThat(TokenCounts.of(u)).isEqualTo(new TokenCounts(20L, 9L, 4L, 2L));
        assertThat(TokenCounts.of(new Usage(3, 5, 8))).isEqualTo(new TokenCounts(3L, 5L, null, null));
        assertThat(TokenCounts.of(null).known()).isFalse();
    }

    @Test
    void anthropicUsageCountsCacheReadsAndWritesAsPromptTokens_issue18() {
        TokenCounts start = TokenCounts.inAnswer("{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":10,"
                + "\"cache_read_input_tokens\":30,\"cache_creation_input_tokens\":5,\"output_tokens\":1}}}");
        assertThat(start).isEqualTo(new TokenCounts(45L, 1L, 30L, null));
        TokenCounts delta = TokenCounts.inAnswer("{\"type\":\"message_delta\",\"usage\":{\"output_tokens\":12}}");
        // a later report wins field by field: the delta's output count, the start's input counts
        assertThat(start.then(delta)).isEqualTo(new TokenCounts(45L, 12L, 30L, null));
    }

    @Test
    void responsesUsageIsReadFromTheCompletedResponse_issue18() {
        TokenCounts t = TokenCounts.inAnswer("{\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":7,"
                + "\"output_tokens\":3,\"input_tokens_details\":{\"cached_tokens\":2},\"output_tokens_details\":{\"reasoning_tokens\":1}}}}");
        assertThat(t).isEqualTo(new TokenCounts(7L, 3L, 2L, 1L));
        assertThat(TokenCounts.inAnswer("not json with usage").known()).isFalse();
        assertThat(TokenCounts.inAnswer("{\"data\":[]}").known()).isFalse();
    }

    @Test
    void aWholeAnswersUsageIsReadFromItsBytesSkippingEverythingElse_issue29() {
        byte[] chat = ("{\"id\":\"c\",\"choices\":[{\"message\":{\"content\":\"usage: " + "y".repeat(300_000) + "\"}}],\"x\":[{},{},[1,2]],"
                + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":6,\"prompt_tokens_details\":{\"cached_tokens\":1}}}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(TokenCounts.inAnswer(chat)).isEqualTo(new TokenCounts(5L, 6L, 1L, null));
        // the top-level usage comes first, then message.usage, then response.usage, wherever they are
        byte[] anthropic = "{\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":3,\"output_tokens\":4}},\"type\":\"message_start\"}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(TokenCounts.inAnswer(anthropic)).isEqualTo(new TokenCounts(3L, 4L, null, null));
        byte[] both = "{\"response\":{\"usage\":{\"input_tokens\":9}},\"usage\":{\"input_tokens\":2}}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(TokenCounts.inAnswer(both).prompt()).isEqualTo(2L);
        // as in a tree, the last field of a name counts
        assertThat(TokenCounts.inAnswer("{\"usage\":{\"prompt_tokens\":1},\"usage\":{\"prompt_tokens\":8}}").prompt()).isEqualTo(8L);
        assertThat(TokenCounts.inAnswer("{\"usage\":{\"prompt_tokens\":1},\"usage\":null}").known()).isFalse();
        assertThat(TokenCounts.inAnswer("{\"usage\":{\"prompt_tokens\":1}".getBytes(java.nio.charset.StandardCharsets.UTF_8)).known())
                .as("a cut answer").isFalse();
        assertThat(TokenCounts.inAnswer("[1]".getBytes(java.nio.charset.StandardCharsets.UTF_8)).known()).isFalse();
    }

    @Test
    void modelLabelsAreCappedThenCountedAsOther_issue18() {
        Labels labels = new Labels();
        for (int i = 0; i < Labels.MAX_MODELS; i++) {
            assertThat(labels.model("p", "m" + i)).isEqualTo("m" + i);
        }
        assertThat(labels.model("p", "one-too-many")).isEqualTo("other");
        assertThat(labels.model("p", "m0")).isEqualTo("m0");
        assertThat(labels.model(null, null)).isEqualTo("none");
        assertThat(Labels.MAX_MODELS).isEqualTo(200);
    }

    @Test
    void apiLabelsAreAFixedSet_issue18() {
        assertThat(Api.of("/v1/chat/completions")).isEqualTo("chat_completions");
        assertThat(Api.of("/v1/models/openai/gpt-4o")).isEqualTo("models");
        assertThat(Api.of("/api/providers/abc")).isEqualTo("admin");
        assertThat(Api.of("/v1/some/client/made/path")).isEqualTo("other");
        assertThat(Api.metered("chat_completions")).isTrue();
        assertThat(Api.metered("models")).isFalse();
        assertThat(Api.logged("metrics")).isFalse();
        assertThat(Api.logged("admin")).isTrue();
    }

    @Test
    void theAccessLogFileRotatesBySizeKeepingAFewFiles_issue18() throws Exception {
        Path file = dir.resolve("logs/access.log");
        RotatingFile f = new RotatingFile(file, 25, 2);
        for (int i = 0; i < 5; i++) {
            f.write("line-" + i + "-0123456789\n");
        }
        f.close();
        assertThat(Files.readAllLines(file)).containsExactly("line-4-0123456789");
        assertThat(Files.readAllLines(dir.resolve("logs/access.log.1"))).containsExactly("line-3-0123456789");
        assertThat(Files.readAllLines(dir.resolve("logs/access.log.2"))).containsExactly("line-2-0123456789");
        assertThat(dir.resolve("logs/access.log.3")).doesNotExist();
        assertThat(AccessLog.MAX_FILE_BYTES).isEqualTo(10L * 1024 * 1024);
        assertThat(AccessLog.KEPT_FILES).isEqualTo(5);
    }
}
