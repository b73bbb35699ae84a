package dev.sluice.runtime.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.chat.ToolCallDelta;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The committed stream's timers as pure decisions on a hand-moved nanosecond clock (SPEC ST-0, ST-1, ST-2, ST-3). */
class StreamTimersTest {

    private static final long MS = 1_000_000L;
    private static final StreamRules RULES = new StreamRules(80_000, 180_000, 15_000, 1_800_000, 1,
            new StreamRules.Throughput(true, 60_000, 30_000, 8, 256));

    static StreamChunk content(String text) {
        return new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, null, text, null, null, null)), null, Map.of());
    }

    static StreamChunk reasoning(String text) {
        return new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, null, null, null, null, text)), null, Map.of());
    }

    static StreamChunk role() {
        return new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, Role.ASSISTANT, null, null, null, null)), null, Map.of());
    }

    static StreamChunk finish() {
        return new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, null, null, null, "stop", null)), null, Map.of());
    }

    static StreamChunk toolCall() {
        return new StreamChunk("c", "m", 1, List.of(new ChunkChoice(0, null, null,
                List.of(new ToolCallDelta(0, "call_1", "f", "{\"a\"")), null, null)), null, Map.of());
    }

    @Test
    void usefulAndActivityFollowTheSpec_ST0_ST1() {
        assertThat(Progress.useful(content("hi"))).isTrue();
        assertThat(Progress.useful(reasoning(""))).as("an empty thinking delta still proves the model is at work").isTrue();
        assertThat(Progress.useful(toolCall())).isTrue();
        assertThat(Progress.useful(finish())).isTrue();
        assertThat(Progress.useful(role())).isFalse();
        assertThat(Progress.useful(StreamChunk.heartbeat("c", "m"))).isFalse();
        assertThat(Progress.activity(reasoning(""))).isTrue();
        assertThat(Progress.activity(finish())).as("a finish is not output").isFalse();
        assertThat(Progress.activity(role())).isFalse();
        assertThat(Progress.activity(StreamChunk.heartbeat("c", "m"))).isFalse();
        assertThat(Progress.textBytes(content("héllo"))).isEqualTo(6);
    }

    @Test
    void keepAlivesFallDueWhileTheUpstreamIsSilentAndWritesPostponeThem() {
        StreamTimers t = new StreamTimers(new StreamRules(80_000, 0, 15_000, 1_800_000, 1, StreamRules.Throughput.OFF), 0, 0);
        assertThat(t.waitNanos(0)).isEqualTo(15_000 * MS);
        assertThat(t.due(14_999 * MS)).isEqualTo(StreamTimers.Due.NOTHING);
        assertThat(t.due(15_000 * MS)).isEqualTo(StreamTimers.Due.KEEP_ALIVE);
        t.onWrite(15_000 * MS);
        assertThat(t.due(20_000 * MS)).isEqualTo(StreamTimers.Due.NOTHING);
        assertThat(t.waitNanos(20_000 * MS)).isEqualTo(10_000 * MS);
    }

    @Test
    void noModelOutputForTheIdleBudgetIsAStallAndHeartbeatsDoNotCount_ST1() {
        StreamTimers t = new StreamTimers(RULES, 0, 0);
        t.onFrame(Signal.of(content("a")), 10_000 * MS);
        for (long at = 20_000; at < 190_000; at += 15_000) {
            t.onFrame(Signal.of(StreamChunk.heartbeat("c", "m")), at * MS);
            t.onWrite(at * MS);
        }
        assertThat(t.due(189_999 * MS)).isNotEqualTo(StreamTimers.Due.STALL);
        assertThat(t.due(190_000 * MS)).isEqualTo(StreamTimers.Due.STALL);
    }

    @Test
    void reasoningFramesRestartTheStallTimer_ST1() {
        StreamTimers t = new StreamTimers(RULES, 0, 0);
        t.onFrame(Signal.of(reasoning("")), 170_000 * MS);
        assertThat(t.due(200_000 * MS)).isNotEqualTo(StreamTimers.Due.STALL);
        assertThat(t.due(350_000 * MS)).isEqualTo(StreamTimers.Due.STALL);
    }

    @Test
    void theHardDeadlineCountsFromTheAttemptsStartAndBeatsEverythingElse() {
        StreamTimers t = new StreamTimers(new StreamRules(80_000, 180_000, 15_000, 100_000, 1, StreamRules.Throughput.OFF), -50_000 * MS, 0);
        assertThat(t.waitNanos(0)).isEqualTo(15_000 * MS);
        assertThat(t.due(49_999 * MS)).isNotEqualTo(StreamTimers.Due.DEADLINE);
        assertThat(t.due(50_000 * MS)).isEqualTo(StreamTimers.Due.DEADLINE);
    }

    @Test
    void aTrickleIsJudgedOnlyAfterWarmUpAndOneFullWindow_ST2_ST3() {
        StreamTimers t = new StreamTimers(RULES, 0, 0);
        // 300 bytes at once, then 1 byte every 10 s: below 8 B/s
        t.onFrame(Signal.of(content("x".repeat(300))), 1_000 * MS);
        long at = 1_000;
        for (; at <= 200_000; at += 10_000) {
            t.onFrame(Signal.of(content("y")), at * MS);
            if (at < 90_000) {
                assertThat(t.due(at * MS)).as("judged before warm-up + window at %d ms", at).isNotEqualTo(StreamTimers.Due.TOO_SLOW);
            }
        }
        assertThat(t.due(at * MS)).isEqualTo(StreamTimers.Due.TOO_SLOW);
    }

    @Test
    void aHealthyRateIsNeverTooSlowAndToolCallsSuspendTheJudgement_ST3() {
        StreamTimers t = new StreamTimers(RULES, 0, 0);
        for (long at = 0; at <= 200_000; at += 1_000) {
            t.onFrame(Signal.of(content("0123456789")), at * MS);
            assertThat(t.due(at * MS)).isNotEqualTo(StreamTimers.Due.TOO_SLOW);
        }
        // a tool call's arguments stream slowly: the window starts afresh after it
        t.onFrame(Signal.of(toolCall()), 201_000 * MS);
        assertThat(t.due(250_000 * MS)).isNotEqualTo(StreamTimers.Due.TOO_SLOW);
        assertThat(t.due(262_000 * MS)).isEqualTo(StreamTimers.Due.TOO_SLOW);
    }

    @Test
    void aShortAnswerIsNeverJudged_ST3() {
        StreamTimers t = new StreamTimers(RULES, 0, 0);
        t.onFrame(Signal.of(content("x".repeat(255))), 0);
        assertThat(t.due(120_000 * MS)).isEqualTo(StreamTimers.Due.KEEP_ALIVE);
        assertThat(new ThroughputMeter(RULES.throughput(), 0).tooSlow(10_000_000 * MS)).isFalse();
    }
}
