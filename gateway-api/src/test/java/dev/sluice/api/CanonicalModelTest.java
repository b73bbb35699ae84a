package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.ChunkStream;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.Usage;
import dev.sluice.api.upstream.ResponseHead;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The canonical chat model and the SPI entry points (CONVENTIONS 1, 2; SPEC PA-3). */
class CanonicalModelTest {

    private static final ChatMessage HI = ChatMessage.text(Role.USER, "hi");

    @Test
    void chatRequestCopiesCollectionsAndDefaultsNulls_PA3() {
        List<ChatMessage> messages = new ArrayList<>(List.of(HI));
        Map<String, String> extra = new HashMap<>(Map.of("seed", "1"));
        ChatRequest r = new ChatRequest("m", messages, null, null, false, null, null, null, null, extra);
        messages.add(HI);
        extra.put("n", "2");

        assertThat(r.messages()).containsExactly(HI);
        assertThat(r.tools()).isEmpty();
        assertThat(r.stop()).isEmpty();
        assertThat(r.extra()).containsExactlyEntriesOf(Map.of("seed", "1"));
        assertThatThrownBy(() -> r.messages().add(HI)).isInstanceOf(UnsupportedOperationException.class);
        assertThatNullPointerException().isThrownBy(() -> new ChatRequest(null, List.of(), null, null, false, null, null, null, null, null))
                .withMessage("model is null");
        assertThatNullPointerException().isThrownBy(() -> new ChatRequest("m", null, null, null, false, null, null, null, null, null))
                .withMessage("messages is null");
    }

    @Test
    void withModelChangesOnlyTheModel_API1() {
        ChatRequest r = new ChatRequest("openai/gpt-4o", List.of(HI), null, "\"auto\"", true, 5, 0.1, 0.2, List.of("x"),
                Map.of("seed", "1"));
        ChatRequest copy = r.withModel("gpt-4o");

        assertThat(copy.model()).isEqualTo("gpt-4o");
        assertThat(copy.withModel("openai/gpt-4o")).isEqualTo(r);
        EmbeddingRequest e = new EmbeddingRequest("a/b", "\"x\"", null);
        assertThat(e.withModel("b")).isEqualTo(new EmbeddingRequest("b", "\"x\"", Map.of()));
    }

    @Test
    void chatMessageValidatesAndJoinsItsText_PA3() {
        ChatMessage m = new ChatMessage(Role.USER, List.of(new ContentPart.Text("a"), new ContentPart.Image("https://i", null),
                new ContentPart.Text("b")), null, null, null, null);

        assertThat(m.textContent()).isEqualTo("ab");
        assertThat(m.toolCalls()).isEmpty();
        assertThat(new ChatMessage(Role.ASSISTANT, null, null, null, null, null).content()).isEmpty();
        assertThatNullPointerException().isThrownBy(() -> new ChatMessage(null, null, null, null, null, null)).withMessage("role is null");
        assertThatNullPointerException().isThrownBy(() -> new ContentPart.Text(null)).withMessage("text is null");
        assertThatNullPointerException().isThrownBy(() -> new ContentPart.Image(null, "low")).withMessage("url is null");
        assertThatNullPointerException().isThrownBy(() -> new ContentPart.Other("t", null)).withMessage("json is null");
    }

    @Test
    void rolesHaveLowerCaseWireNames_API1() {
        assertThat(List.of(Role.values())).extracting(Role::wireName).containsExactly("system", "developer", "user", "assistant", "tool");
        assertThat(Role.fromWireName("tool")).isEqualTo(Role.TOOL);
        assertThatThrownBy(() -> Role.fromWireName("TOOL")).isInstanceOf(IllegalArgumentException.class).hasMessage("unknown role 'TOOL'");
        assertThatThrownBy(() -> Role.fromWireName(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void usageRefusesNegativeCounts_PA3() {
        assertThat(new Usage(0, 0, 0).totalTokens()).isZero();
        assertThatThrownBy(() -> new Usage(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("token counts must not be negative");
        assertThatThrownBy(() -> new Usage(0, -1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Usage(0, 0, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toolCallArgumentsDefaultToEmpty_PA3() {
        assertThat(new ToolCall("c", "f", null).argumentsJson()).isEmpty();
        assertThatNullPointerException().isThrownBy(() -> new ToolCall(null, "f", "{}")).withMessage("id is null");
        assertThatNullPointerException().isThrownBy(() -> new ToolCall("c", null, "{}")).withMessage("name is null");
    }

    @Test
    void responseAndChunkValidateAndCopy_PA3() {
        assertThatNullPointerException().isThrownBy(() -> new ChatResponse(null, "m", 0, List.of(), null, null)).withMessage("id is null");
        assertThatNullPointerException().isThrownBy(() -> new ChatResponse("i", null, 0, List.of(), null, null)).withMessage("model is null");
        assertThatNullPointerException().isThrownBy(() -> new ChatResponse("i", "m", 0, null, null, null)).withMessage("choices is null");
        StreamChunk c = new StreamChunk("i", "m", 0, null, null, null);
        assertThat(c.choices()).isEmpty();
        assertThat(c.extra()).isEmpty();
    }

    @Test
    void outcomesAndCallsRefuseNulls_PA3() {
        ResponseHead head = new ResponseHead(200, Map.of());
        UpstreamTarget target = new UpstreamTarget("c", "p", ProviderClass.APIKEY, "https://x", Credentials.NONE, Map.of());
        ChatRequest req = new ChatRequest("m", List.of(HI), null, null, false, null, null, null, null, null);
        ChunkStream empty = new ChunkStream() {
            @Override
            public StreamChunk next() {
                return null;
            }

            @Override
            public void close() {
            }
        };

        assertThat(new ChatOutcome.Streaming(empty, head).chunks()).isSameAs(empty);
        assertThatNullPointerException().isThrownBy(() -> new ChatOutcome.Completed(null, head)).withMessage("response is null");
        assertThatNullPointerException().isThrownBy(() -> new ChatOutcome.Streaming(empty, null)).withMessage("head is null");
        assertThatNullPointerException().isThrownBy(() -> new ChatOutcome.Failed(null)).withMessage("failure is null");
        assertThatNullPointerException().isThrownBy(() -> new EmbeddingOutcome.Completed(null, head)).withMessage("bodyJson is null");
        assertThatNullPointerException().isThrownBy(() -> new ChatCall(req, target, null, Duration.ZERO, Map.of())).withMessage("requestId is null");
        assertThatNullPointerException().isThrownBy(() -> new ChatCall(req, target, "r", null, Map.of())).withMessage("timeout is null");
        assertThatNullPointerException().isThrownBy(() -> new EmbeddingCall(null, target, "r", Duration.ZERO)).withMessage("request is null");
    }

    @Test
    void pluginContributionsDefaultToEmptyAndTheSpiVersionIsOne_PA3() {
        ProviderPlugin minimal = new ProviderPlugin() {
            @Override
            public String name() {
                return "minimal";
            }

            @Override
            public int spiVersion() {
                return SPI_VERSION;
            }
        };

        assertThat(ProviderPlugin.SPI_VERSION).isEqualTo(1);
        assertThat(minimal.spiVersion()).isEqualTo(1);
        assertThat(minimal.providers()).isEmpty();
        assertThat(minimal.executors()).isEmpty();
        assertThat(minimal.restatementRules()).isEmpty();
        assertThat(minimal.errorRules()).isEmpty();
        assertThat(minimal.egressBucketing()).isEmpty();
    }

    @Test
    void executorsServeNoEmbeddingsByDefault_API4() {
        ProviderExecutor chatOnly = call -> new ChatOutcome.Failed(new dev.sluice.api.upstream.TransportError(
                dev.sluice.api.upstream.TransportErrorKind.OTHER, "x"));

        assertThat(chatOnly.supportsEmbeddings()).isFalse();
        assertThatThrownBy(() -> chatOnly.embed(null)).isInstanceOf(IllegalStateException.class).hasMessageEndingWith("does not serve embeddings");
    }

    @Test
    void pluginSettingsDefaultApplies_PA4() {
        PluginSettings s = new PluginSettings() {
            @Override
            public Optional<String> get(String key) {
                return key.equals("region") ? Optional.of("cn") : Optional.empty();
            }

            @Override
            public Set<String> keys() {
                return Set.of("region");
            }
        };

        assertThat(s.get("region", "eu")).isEqualTo("cn");
        assertThat(s.get("tier", "free")).isEqualTo("free");
    }
}
