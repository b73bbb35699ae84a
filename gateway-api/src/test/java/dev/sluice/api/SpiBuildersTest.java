package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.api.upstream.UpstreamError;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue 17 item 6: SPI values that grow have builders and with-methods that keep every field. */
@SuppressWarnings("deprecation") // the positional forms kept for compiled plugins are tested too
class SpiBuildersTest {

    private static final UpstreamTarget TARGET = new UpstreamTarget("c1", "acme", ProviderClass.APIKEY, "https://acme.test/v1",
            new Credentials("k", null, null, null), Map.of());

    @Test
    void descriptorBuilderHasDefaultsAndEqualsThePositionalForm() {
        ProviderDescriptor built = ProviderDescriptor.builder("acme").displayName("Acme").defaultBaseUrl("https://acme.test/v1")
                .models(List.of(ModelInfo.chat("a-1"))).errorRuleOptIns(false, true).build();

        assertThat(built).isEqualTo(new ProviderDescriptor("acme", "Acme", ProviderClass.APIKEY, "https://acme.test/v1",
                HostContext.OPENAI_COMPATIBLE, List.of(ModelInfo.chat("a-1")), false, false, true));
        assertThat(built.toBuilder().build()).isEqualTo(built);
        assertThat(built.toBuilder().executor("acme-x").build().honorsRuleScope()).isTrue();
        assertThat(ProviderDescriptor.builder("b").defaultBaseUrl("https://b.test").build().displayName()).isEqualTo("b");
        assertThatThrownBy(() -> ProviderDescriptor.builder("acme").build()).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("defaultBaseUrl");
    }

    @Test
    void withRequestKeepsTheClientHeadersThatThePositionalConstructorDropped_issue17() {
        ChatRequest request = ChatRequest.builder("m", List.of(ChatMessage.text(Role.USER, "hi"))).build();
        ChatCall call = ChatCall.builder(request, TARGET).requestId("req_1").timeout(Duration.ofSeconds(3))
                .clientHeaders(Map.of("anthropic-beta", "x")).build();

        ChatCall changed = call.withRequest(request.withMaxTokens(64));

        assertThat(changed.clientHeaders()).containsEntry("anthropic-beta", "x");
        assertThat(changed.request().maxTokens()).isEqualTo(64);
        assertThat(changed.requestId()).isEqualTo("req_1");
        assertThat(changed.toBuilder().build()).isEqualTo(changed);
    }

    @Test
    void requestToBuilderChangesOneFieldAndKeepsExtra() {
        ChatRequest r = ChatRequest.builder("m", List.of(ChatMessage.text(Role.USER, "hi"))).extra(Map.of("seed", "7")).stream(true)
                .build();

        ChatRequest copy = r.toBuilder().temperature(0.5).build();

        assertThat(copy.extra()).containsEntry("seed", "7");
        assertThat(copy.stream()).isTrue();
        assertThat(copy.temperature()).isEqualTo(0.5);
    }

    @Test
    void messageToBuilderKeepsExtraFields() {
        ChatMessage m = ChatMessage.builder(Role.ASSISTANT).text("x").extra(Map.of("refusal", "null")).build();

        ChatMessage copy = m.toBuilder().reasoningContent("because").build();

        assertThat(copy.extra()).containsEntry("refusal", "null");
        assertThat(copy.textContent()).isEqualTo("x");
        assertThat(copy.reasoningContent()).isEqualTo("because");
    }

    @Test
    void chunkBuilderDerivesTheKindUnlessSet() {
        StreamChunk empty = StreamChunk.builder("id", "m").build();
        StreamChunk beat = StreamChunk.builder("id", "m").kind(FrameKind.HEARTBEAT).build();

        assertThat(empty.kind()).isEqualTo(FrameKind.of(List.<ChunkChoice>of()));
        assertThat(beat).isEqualTo(StreamChunk.heartbeat("id", "m"));
        assertThat(beat.toBuilder().created(5).build().created()).isEqualTo(5);
    }

    @Test
    void upstreamErrorBuilderAndRetryHint() {
        ResponseHead head = new ResponseHead(429, Map.of());
        UpstreamError e = UpstreamError.builder(head).body("{}").errorCode("rate_limited").message("slow down").build();

        assertThat(e).isEqualTo(new UpstreamError(head, "{}", "rate_limited", null, "slow down"));
        assertThat(e.withRetryHint(null)).isEqualTo(e);
        assertThat(UpstreamError.builder(head).build().body()).isEmpty();
    }

    @Test
    void experimentalIsNotVisibleAtRunTime() {
        // CLASS retention: a marker for readers and the compatibility check, no runtime cost
        assertThat(Experimental.class.getAnnotation(java.lang.annotation.Retention.class).value())
                .isEqualTo(java.lang.annotation.RetentionPolicy.CLASS);
        assertThat(RetryHint.class).isNotNull();
    }
}
