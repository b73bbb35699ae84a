package dev.sluice.plugin.claude;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ChatCall;
import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.Recovery;
import dev.sluice.api.RecoveryCall;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.upstream.UpstreamError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The low-priority lane and the session-limit reset of a subscription account (SPEC CL-1…CL-7), on a fake clock. */
class ClaudeLaneTest {

    private static final String BASE = "http://127.0.0.1:18080";
    private static final String P = UnifiedLimits.PREFIX;

    private final AtomicLong now = new AtomicLong(FakeHost.NOW.toEpochMilli());
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private final FakeUpstream upstream = new FakeUpstream();
    private final ProviderExecutor executor = new ClaudeExecutorFactory().create(FakeHost.create(upstream, Map.of(), clock, null));

    private static UpstreamTarget target(Map<String, Object> psd) {
        return new UpstreamTarget("c1", "claude", ProviderClass.OAUTH, BASE, new Credentials(null, "sk-ant-oat01-access", null, null), psd);
    }

    private static final UpstreamTarget LANE = target(Map.of("lowPriorityMode", true));

    private long resetIn(Duration d) {
        return (now.get() + d.toMillis()) / 1000;
    }

    private static UpstreamError answer(int status, Map<String, String> unified) {
        return LaneAnswers.answer(status, unified);
    }

    private UpstreamError wall() {
        return LaneAnswers.wall(resetIn(Duration.ofHours(2)));
    }

    private Recovery recover(UpstreamTarget t, UpstreamError e, Duration waited) {
        return executor.recover(new RecoveryCall(t, e, 0, waited, Duration.ofMinutes(10)));
    }

    private void chat(UpstreamTarget t) {
        LaneAnswers.chat(executor, upstream, t);
    }

    @Test
    void withoutTheOptInsAndWithoutUnifiedHeadersTheFailureGoesOn_CL1() {
        assertThat(recover(target(Map.of()), wall(), Duration.ZERO)).isInstanceOf(Recovery.HandOn.class);
        assertThat(recover(LANE, answer(429, Map.of()), Duration.ZERO)).as("a 429 without unified headers").isInstanceOf(Recovery.HandOn.class);
        assertThat(recover(LANE, answer(429, Map.of("status", "rejected", "slow-offer", "control", "reset",
                String.valueOf(resetIn(Duration.ofHours(1))))), Duration.ZERO)).as("no offer, no lane").isInstanceOf(Recovery.HandOn.class);
        chat(LANE);
        assertThat(upstream.last().headers()).doesNotContainKey(LowPriorityLane.HEADER);
    }

    @Test
    void theWallWithTheOfferRetriesAtOnceAndEveryRequestUntilTheResetRidesTheLane_CL2() {
        assertThat(recover(LANE, wall(), Duration.ZERO)).isInstanceOf(Recovery.RetryNow.class);
        chat(LANE);
        assertThat(upstream.last().headers()).containsEntry(LowPriorityLane.HEADER, "slow");
        assertThat(executor.connectionState("c1")).containsEntry("lowPriorityLane", "active")
                .containsEntry("laneUntil", resetIn(Duration.ofHours(2)) * 1000 + LowPriorityLane.GRACE_MS);
        now.addAndGet(Duration.ofHours(2).plusSeconds(61).toMillis());
        chat(LANE);
        assertThat(upstream.last().headers()).as("past the reset and its grace").doesNotContainKey(LowPriorityLane.HEADER);
    }

    @Test
    void aBusySlotOrA529IsWaitedOutWithJitterUpToTheMaxWaitThenACoolOff_CL3() {
        recover(LANE, wall(), Duration.ZERO);
        Recovery busy = recover(LANE, answer(429, Map.of("status", "rejected", "slow-status", "slot_busy", "slow-retry-after", "30")),
                Duration.ZERO);
        assertThat(busy).isInstanceOf(Recovery.RetryAfter.class);
        assertThat(((Recovery.RetryAfter) busy).delay().toMillis()).isBetween(21_000L, 39_000L);
        Recovery overloaded = recover(LANE, answer(529, Map.of()), Duration.ZERO);
        assertThat(((Recovery.RetryAfter) overloaded).delay().toMillis()).as("default 20 s ± 30 %").isBetween(14_000L, 26_000L);
        Recovery tiny = recover(LANE, answer(529, Map.of("slow-retry-after", "1")), Duration.ZERO);
        assertThat(((Recovery.RetryAfter) tiny).delay().toMillis()).as("clamped to 5 s").isBetween(3_500L, 6_500L);

        Recovery past = recover(LANE, answer(429, Map.of("slow-status", "slot_busy", "slow-max-wait", "120")), Duration.ofSeconds(119));
        assertThat(past).isInstanceOf(Recovery.HandOn.class);
        assertThat(executor.connectionState("c1")).containsEntry("lowPriorityLane", "cool_off");
        assertThat(recover(LANE, wall(), Duration.ZERO)).as("no lane during the 10-minute cool-off").isInstanceOf(Recovery.HandOn.class);
        now.addAndGet(Duration.ofMinutes(10).toMillis());
        assertThat(recover(LANE, wall(), Duration.ZERO)).isInstanceOf(Recovery.RetryNow.class);
    }

    @Test
    void anEndingVerdictEndsTheLaneAndTakesTheNormalPath_CL4() {
        recover(LANE, wall(), Duration.ZERO);
        assertThat(recover(LANE, answer(429, Map.of("status", "rejected", "slow-status", "weekly_limit")), Duration.ZERO))
                .isInstanceOf(Recovery.HandOn.class);
        assertThat(executor.connectionState("c1")).containsEntry("lowPriorityLane", "inactive")
                .containsEntry("laneLastTransition", "ended:weekly_limit");

        recover(LANE, wall(), Duration.ZERO);
        long budgetReset = resetIn(Duration.ofDays(3));
        recover(LANE, answer(429, Map.of("status", "rejected", "slow-status", "budget_exhausted", "slow-budget-reset",
                String.valueOf(budgetReset))), Duration.ZERO);
        assertThat(recover(LANE, wall(), Duration.ZERO)).as("budget_exhausted remembered").isInstanceOf(Recovery.HandOn.class);
        assertThat(executor.connectionState("c1")).containsEntry("laneBudgetExhaustedUntil", budgetReset * 1000);
    }

    @Test
    void aSuccessInANewWindowEndsTheLane_CL4() {
        recover(LANE, wall(), Duration.ZERO);
        upstream.answer(200, Map.of("content-type", List.of("application/json"), P + "status", List.of("allowed"), P + "reset",
                List.of(String.valueOf(resetIn(Duration.ofHours(7))))), "{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\","
                + "\"model\":\"m\",\"content\":[],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}");
        executor.chat(new ChatCall(new ChatRequest("m", List.of(ChatMessage.text(Role.USER, "Hi")), List.of(), null, false, null, null, null,
                List.of(), Map.of()), LANE, "r", Duration.ofSeconds(7), Map.of()));
        assertThat(executor.connectionState("c1")).containsEntry("laneLastTransition", "ended:new_window");
    }

    @Test
    void theLimitResetIsClaimedBeforeTheLaneAndTheRetryHasNoSlowHeader_CL7() {
        UpstreamTarget both = target(Map.of("lowPriorityMode", true, "autoLimitReset", true, "organizationUUID", "org-1"));
        upstream.on("/api/oauth/usage", r -> new FakeUpstream.FakeResponse(200, Map.of(),
                "{\"juniper_tide\":{\"eligible\":true,\"arm\":\"reset\",\"available\":true}}"));
        upstream.on("/api/organizations/org-1/reset_rate_limits", r -> new FakeUpstream.FakeResponse(200, Map.of(), "{\"result\":\"reset\"}"));

        assertThat(recover(both, wall(), Duration.ZERO)).isInstanceOf(Recovery.RetryNow.class);
        assertThat(new String(upstream.to("/api/organizations/org-1/reset_rate_limits").get(0).body(), StandardCharsets.UTF_8))
                .isEqualTo("{\"program\":\"juniper_tide\"}");
        assertThat(upstream.to("/api/oauth/usage").get(0).uri().getQuery()).isEqualTo("at_wall=1&skip_spend=1");
        chat(both);
        assertThat(upstream.last().headers()).as("reset: full speed").doesNotContainKey(LowPriorityLane.HEADER);
        assertThat(executor.connectionState("c1")).containsEntry("limitResetLastResult", "reset");
    }

    @Test
    void anUnavailableResetIsRememberedAndTheLaneServesMeanwhile_CL7() {
        UpstreamTarget both = target(Map.of("lowPriorityMode", true, "autoLimitReset", true, "organizationUUID", "org-1"));
        String next = Instant.ofEpochMilli(now.get()).plus(Duration.ofDays(2)).toString();
        upstream.on("/api/oauth/usage", r -> new FakeUpstream.FakeResponse(200, Map.of(), "{\"juniper_tide\":{\"arm\":\"reset\","
                + "\"available\":false,\"next_available_at\":\"" + next + "\"}}"));
        assertThat(recover(both, wall(), Duration.ZERO)).as("then the lane").isInstanceOf(Recovery.RetryNow.class);
        assertThat(executor.connectionState("c1")).containsEntry("limitResetLastResult", "not_offered")
                .containsEntry("limitResetNotBefore", Instant.parse(next).toEpochMilli());

        UpstreamTarget resetOnly = new UpstreamTarget("c9", "claude", ProviderClass.OAUTH, BASE,
                new Credentials(null, "sk-ant-oat01-access", null, null), Map.of("autoLimitReset", true, "organizationUUID", "org-1"));
        upstream.on("/api/oauth/usage", r -> {
            throw new java.io.IOException("connection reset");
        });
        assertThat(recover(resetOnly, wall(), Duration.ZERO)).isInstanceOf(Recovery.HandOn.class);
        int asked = upstream.to("/api/oauth/usage").size();
        recover(resetOnly, wall(), Duration.ZERO);
        assertThat(upstream.to("/api/oauth/usage")).as("a failure arms a 15-minute wait").hasSize(asked);
        now.addAndGet(Duration.ofMinutes(15).toMillis());
        recover(resetOnly, wall(), Duration.ZERO);
        assertThat(upstream.to("/api/oauth/usage")).hasSize(asked + 1);
    }
}
