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
import dev.sluice.testkit.plugin.MemorySharedNotes;
import dev.sluice.testkit.plugin.TestingHostContext;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The low-priority lane on two instances of a cluster (NF-6 beside CL-2…CL-4): two executors over
 * one set of shared notes, on a fake clock.
 */
class ClaudeSharedLaneTest {

    private static final UpstreamTarget LANE = new UpstreamTarget("c1", "claude", ProviderClass.OAUTH, "http://127.0.0.1:18080",
            new Credentials(null, "sk-ant-oat01-access", null, null), Map.of("lowPriorityMode", true));

    private final AtomicLong now = new AtomicLong(FakeHost.NOW.toEpochMilli());
    private final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    private final MemorySharedNotes notes = new MemorySharedNotes(clock);
    private final FakeUpstream upstreamA = new FakeUpstream();
    private final FakeUpstream upstreamB = new FakeUpstream();
    private final ProviderExecutor a = executor(upstreamA);
    private final ProviderExecutor b = executor(upstreamB);

    private ProviderExecutor executor(FakeUpstream upstream) {
        return new ClaudeExecutorFactory().create(TestingHostContext.builder("claude").http(upstream).clock(clock).sharedNotes(notes).build());
    }

    private long resetIn(Duration d) {
        return (now.get() + d.toMillis()) / 1000;
    }

    private static UpstreamError answer(int status, Map<String, String> unified) {
        return LaneAnswers.answer(status, unified);
    }

    private UpstreamError wall() {
        return LaneAnswers.wall(resetIn(Duration.ofHours(2)));
    }

    private static Recovery recover(ProviderExecutor e, UpstreamError failure, Duration waited) {
        return e.recover(new RecoveryCall(LANE, failure, 0, waited, Duration.ofMinutes(10)));
    }

    private static void chat(ProviderExecutor e, FakeUpstream upstream) {
        LaneAnswers.chat(e, upstream, LANE);
    }

    @Test
    void aLaneAcceptedOnOneInstanceIsRiddenByTheOtherWithoutItsOwnLimit429() {
        chat(b, upstreamB);
        assertThat(upstreamB.last().headers()).doesNotContainKey(LowPriorityLane.HEADER);

        assertThat(recover(a, wall(), Duration.ZERO)).isInstanceOf(Recovery.RetryNow.class);
        assertThat(notes.ttl("c1")).as("the note outlasts the lane: reset + grace")
                .contains(Duration.ofMillis(resetIn(Duration.ofHours(2)) * 1000 + LowPriorityLane.GRACE_MS - now.get()));

        now.addAndGet(LowPriorityLane.SYNC_MS);
        chat(b, upstreamB);
        assertThat(upstreamB.last().headers()).as("B rides A's lane on its next request").containsEntry(LowPriorityLane.HEADER, "slow");
        assertThat(b.connectionState("c1")).containsEntry("lowPriorityLane", "active").containsEntry("laneLastTransition", "accepted");
    }

    @Test
    void aLaneEndedOnOneInstanceEndsOnTheOther() {
        recover(a, wall(), Duration.ZERO);
        now.addAndGet(LowPriorityLane.SYNC_MS);
        chat(b, upstreamB);
        assertThat(upstreamB.last().headers()).containsEntry(LowPriorityLane.HEADER, "slow");

        recover(a, answer(429, Map.of("status", "rejected", "slow-status", "weekly_limit")), Duration.ZERO);
        now.addAndGet(LowPriorityLane.SYNC_MS);
        chat(b, upstreamB);
        assertThat(upstreamB.last().headers()).as("ended through A").doesNotContainKey(LowPriorityLane.HEADER);
        assertThat(b.connectionState("c1")).containsEntry("laneLastTransition", "ended:weekly_limit");
    }

    @Test
    void theCoolOffAndTheSpentBudgetOfOneInstanceHoldOnTheOther() {
        recover(a, wall(), Duration.ZERO);
        recover(a, answer(429, Map.of("slow-status", "slot_busy", "slow-max-wait", "120")), Duration.ofSeconds(119));
        assertThat(a.connectionState("c1")).containsEntry("lowPriorityLane", "cool_off");
        assertThat(recover(b, wall(), Duration.ZERO)).as("B reads the note before accepting: no lane during A's cool-off")
                .isInstanceOf(Recovery.HandOn.class);
        now.addAndGet(Duration.ofMinutes(10).toMillis());
        assertThat(recover(b, wall(), Duration.ZERO)).isInstanceOf(Recovery.RetryNow.class);

        long budgetReset = resetIn(Duration.ofDays(3));
        recover(b, answer(429, Map.of("status", "rejected", "slow-status", "budget_exhausted", "slow-budget-reset",
                String.valueOf(budgetReset))), Duration.ZERO);
        assertThat(recover(a, wall(), Duration.ZERO)).as("B's spent budget holds on A").isInstanceOf(Recovery.HandOn.class);
        assertThat(a.connectionState("c1")).containsEntry("laneBudgetExhaustedUntil", budgetReset * 1000);
    }

    @Test
    void withoutTheSharedStoreEachInstanceKeepsItsOwnLane() {
        notes.reachable(false);
        recover(a, wall(), Duration.ZERO);
        now.addAndGet(LowPriorityLane.SYNC_MS);
        chat(b, upstreamB);
        assertThat(upstreamB.last().headers()).doesNotContainKey(LowPriorityLane.HEADER);
        chat(a, upstreamA);
        assertThat(upstreamA.last().headers()).as("A still rides its own lane").containsEntry(LowPriorityLane.HEADER, "slow");
    }

    @Test
    void aConnectionThatDidNotOptInNeverReadsNotes() {
        UpstreamTarget plain = new UpstreamTarget("c2", "claude", ProviderClass.OAUTH, "http://127.0.0.1:18080",
                new Credentials(null, "sk-ant-oat01-access", null, null), Map.of());
        notes.put("c2", new LowPriorityLane.State(now.get() + 600_000, now.get(), 0, 0, "accepted").note(), Duration.ofMinutes(10));
        upstreamB.answer(200, Map.of("content-type", List.of("application/json")), "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":"
                + "\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}");
        b.chat(new ChatCall(new ChatRequest("m", List.of(ChatMessage.text(Role.USER, "Hi")), List.of(), null, false, null, null, null,
                List.of(), Map.of()), plain, "r", Duration.ofSeconds(7), Map.of()));
        assertThat(upstreamB.last().headers()).doesNotContainKey(LowPriorityLane.HEADER);
    }
}
