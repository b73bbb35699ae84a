package dev.sluice.runtime.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link Deadlines}: waits past their deadline are ended, also after the watch went idle (issue 26). */
class DeadlinesTest {

    /** A read whose deadline is {@code inMs} from now, counting its expiries. */
    private static final class Read implements Deadlines.Waiter {
        final long deadline;
        final AtomicInteger expired = new AtomicInteger();

        Read(long inMs) {
            deadline = System.nanoTime() + inMs * 1_000_000L;
        }

        @Override
        public long deadline() {
            return deadline;
        }

        @Override
        public void expire() {
            expired.incrementAndGet();
        }
    }

    @Test
    void aReadPastItsDeadlineIsEndedAndOneWithinItIsNot_I26() {
        Read late = new Read(50);
        Read inTime = new Read(60_000);
        Deadlines.enter(late);
        Deadlines.enter(inTime);
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> late.expired.get() > 0);
            assertThat(inTime.expired).hasValue(0);
        } finally {
            Deadlines.leave(late);
            Deadlines.leave(inTime);
        }
    }

    @Test
    void theWatchParksWithoutReadsAndTheNextReadWakesIt_I26() {
        Read first = new Read(60_000);
        Deadlines.enter(first); // starts the thread if no test did
        Deadlines.leave(first);
        // IDLE_TICKS ticks without a read (1 s): the thread parks instead of ticking
        await().atMost(Duration.ofSeconds(10)).until(Deadlines::asleep);
        Read late = new Read(0);
        Deadlines.enter(late);
        try {
            assertThat(Deadlines.asleep()).isFalse();
            await().atMost(Duration.ofSeconds(2)).until(() -> late.expired.get() > 0);
        } finally {
            Deadlines.leave(late);
        }
    }
}
