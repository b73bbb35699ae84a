package dev.sluice.runtime.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link Deadlines}: waits past their deadline are ended, on time, also after the watch went idle (issue 26). */
class DeadlinesTest {

    /** A wait whose deadline is {@code inMs} from now, counting its expiries and noting the last one's time. */
    private static final class Wait implements Deadlines.Waiter {
        final long deadline;
        final AtomicInteger expired = new AtomicInteger();
        final AtomicLong expiredAt = new AtomicLong();

        Wait(long inMs) {
            deadline = System.nanoTime() + inMs * 1_000_000L;
        }

        @Override
        public long deadline() {
            return deadline;
        }

        @Override
        public void expire() {
            expiredAt.set(System.nanoTime());
            expired.incrementAndGet();
        }
    }

    @Test
    void aWaitPastItsDeadlineIsEndedOnceAndOnTimeAndOneWithinItIsNot_I26() {
        Wait far = new Wait(60_000);
        Deadlines.enter(far); // the watch now sleeps towards a minute from now
        Wait soon = new Wait(300);
        Deadlines.enter(soon); // earlier: wakes it
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> soon.expired.get() > 0);
            assertThat(Duration.ofNanos(soon.expiredAt.get() - soon.deadline)).isBetween(Duration.ZERO, Duration.ofMillis(700));
            assertThat(far.expired).hasValue(0);
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(1)).until(() -> soon.expired.get() == 1);
            assertThat(Deadlines.watched()).as("an expired wait leaves the set").isEqualTo(1);
        } finally {
            Deadlines.leave(far);
            Deadlines.leave(soon);
        }
    }

    @Test
    void theWatchSleepsWithoutWaitsAndTheNextWaitWakesIt_I26() {
        Wait first = new Wait(60_000);
        Deadlines.enter(first); // starts the thread if no test did
        Deadlines.leave(first);
        // a second without waits: the thread sleeps until the next wait
        await().atMost(Duration.ofSeconds(10)).until(() -> Deadlines.sleepsFor() > Duration.ofDays(365).toNanos());
        Wait late = new Wait(50);
        Deadlines.enter(late);
        try {
            await().atMost(Duration.ofSeconds(2)).until(() -> late.expired.get() > 0);
        } finally {
            Deadlines.leave(late);
        }
    }

    @Test
    void aWaitWhoseExpiryFailsDoesNotStopTheWatchForTheOthers_I26() {
        Deadlines.Waiter broken = new Deadlines.Waiter() {
            final long deadline = System.nanoTime();

            @Override
            public long deadline() {
                return deadline;
            }

            @Override
            public void expire() {
                throw new IllegalStateException("broken on purpose");
            }
        };
        Deadlines.enter(broken);
        Wait after = new Wait(100);
        Deadlines.enter(after);
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> after.expired.get() > 0);
        } finally {
            Deadlines.leave(broken);
            Deadlines.leave(after);
        }
    }
}
