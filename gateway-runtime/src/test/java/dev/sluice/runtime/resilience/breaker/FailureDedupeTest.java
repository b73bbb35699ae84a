package dev.sluice.runtime.resilience.breaker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A connection's failures on one breaker count once per window (SPEC CB-4), in bounded memory. */
class FailureDedupeTest {

    private static final BreakerKey GLM = new BreakerKey("glm", "open.bigmodel.cn:443");
    private static final BreakerKey ZAI = new BreakerKey("glm", "api.z.ai:443");

    private final TestClock clock = TestClock.create();
    private final FailureDedupe dedupe = new FailureDedupe();

    @Test
    void aFailureWithinTheWindowOfTheConnectionsLastCountedOneIsARepeat_CB4() {
        long until = dedupe.remember(GLM, "c1", clock.millis());
        assertThat(until).isEqualTo(clock.millis() + FailureDedupe.WINDOW_MS);

        clock.advance(Duration.ofMillis(FailureDedupe.WINDOW_MS - 1));
        assertThat(dedupe.isRepeat(GLM, "c1", clock.millis())).isTrue();
        assertThat(dedupe.isRepeat(GLM, "c2", clock.millis())).as("another connection").isFalse();
        assertThat(dedupe.isRepeat(ZAI, "c1", clock.millis())).as("another breaker").isFalse();
        assertThat(dedupe.isRepeat(GLM, null, clock.millis())).as("no connection id").isFalse();

        clock.advance(Duration.ofMillis(1));
        assertThat(dedupe.isRepeat(GLM, "c1", clock.millis())).isFalse();
    }

    @Test
    void aSuccessOrAResetForgetsTheEntries_CB4() {
        dedupe.remember(GLM, "c1", clock.millis());
        dedupe.remember(ZAI, "c1", clock.millis());
        dedupe.remember(new BreakerKey("zai", "x:1"), "c1", clock.millis());
        dedupe.forget(GLM, "c1");
        assertThat(dedupe.isRepeat(GLM, "c1", clock.millis())).isFalse();
        dedupe.forgetBreaker(ZAI);
        assertThat(dedupe.size()).isEqualTo(1);
        dedupe.forgetProvider("zai");
        assertThat(dedupe.size()).isZero();
    }

    @Test
    void theMemoryIsBoundedAndDropsStaleEntriesFirst_CB4() {
        for (int i = 0; i < FailureDedupe.MAX_ENTRIES; i++) {
            dedupe.remember(GLM, "c" + i, clock.millis());
        }
        dedupe.remember(GLM, "one-more", clock.millis());
        assertThat(dedupe.size()).as("the oldest made room").isEqualTo(FailureDedupe.MAX_ENTRIES);

        clock.advance(Duration.ofMillis(FailureDedupe.WINDOW_MS));
        dedupe.remember(GLM, "fresh", clock.millis());
        assertThat(dedupe.size()).as("stale entries are dropped first").isEqualTo(1);
    }
}
