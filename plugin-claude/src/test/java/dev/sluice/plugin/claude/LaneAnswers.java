package dev.sluice.plugin.claude;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** What the lane tests play: Anthropic's unified rate-limit answers, and a served chat request. */
final class LaneAnswers {

    private LaneAnswers() {
    }

    /** An error answer with {@code anthropic-ratelimit-unified-*} headers (keys without the prefix). */
    static UpstreamError answer(int status, Map<String, String> unified) {
        Map<String, List<String>> h = new HashMap<>();
        unified.forEach((k, v) -> h.put(UnifiedLimits.PREFIX + k, List.of(v)));
        return UpstreamError.builder(new ResponseHead(status, h))
                .body("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}")
                .errorType("rate_limit_error")
                .message("limit")
                .build();
    }

    /** The usage wall with the lane offered, resetting at {@code resetEpochSeconds}. */
    static UpstreamError wall(long resetEpochSeconds) {
        return answer(429, Map.of("status", "rejected", "slow-offer", "treatment", "reset", String.valueOf(resetEpochSeconds)));
    }

    /** One chat request through {@code executor} that {@code upstream} answers with a plain message. */
    static void chat(ProviderExecutor executor, FakeUpstream upstream, UpstreamTarget target) {
        upstream.answer(200, Map.of("content-type", List.of("application/json")), "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":"
                + "\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"stop_reason\":\"end_turn\","
                + "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}");
        executor.chat(new ChatCall(new ChatRequest("claude-sonnet-4-5", List.of(ChatMessage.text(Role.USER, "Hi")), List.of(), null, false,
                null, null, null, List.of(), Map.of()), target, "req-1", Duration.ofSeconds(7), Map.of()));
    }
}
