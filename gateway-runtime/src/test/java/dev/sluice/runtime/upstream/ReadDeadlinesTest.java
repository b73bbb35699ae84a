package dev.sluice.runtime.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link ReadDeadlines}: reads past their deadline are ended, also after the watch went idle (issue 26). */
class ReadDeadlinesTest {

    /** A read whose deadline is {@code inMs} from now, counting its expiries. */
    private static final class Read implements ReadDeadlines.Reader {
        final long deadline;
        final AtomicInteger expired = new AtomicInteger();

        Read(long inMs) {
            deadline = System.nanoTime() + inMs * 1_000_000L;
        }

        @Override
        public long readDeadline() {
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
        ReadDeadlines.reading(late);
        ReadDeadlines.reading(inTime);
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> late.expired.get() > 0);
            assertThat(inTime.expired).hasValue(0);
        } finally {
            ReadDeadlines.done(late);
            ReadDeadlines.done(inTime);
        }
    }

    @Test
    void theWatchParksWithoutReadsAndTheNextReadWakesIt_I26() {
        Read first = new Read(60_000);
        ReadDeadlines.reading(first); // starts the thread if no test did
        ReadDeadlines.done(first);
        // IDLE_TICKS ticks without a read (1 s): the thread parks instead of ticking
        await().atMost(Duration.ofSeconds(10)).until(ReadDeadlines::asleep);
        Read late = new Read(0);
        ReadDeadlines.reading(late);
        try {
            assertThat(ReadDeadlines.asleep()).isFalse();
            await().atMost(Duration.ofSeconds(2)).until(() -> late.expired.get() > 0);
        } finally {
            ReadDeadlines.done(late);
        }
    }
}
