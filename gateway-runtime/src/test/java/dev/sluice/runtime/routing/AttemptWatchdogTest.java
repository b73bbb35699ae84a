package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The execution bound of one attempt (SPEC RQ-2). */
class AttemptWatchdogTest {

    private final AttemptWatchdog watchdog = new AttemptWatchdog();

    @org.junit.jupiter.api.AfterEach
    void stop() {
        watchdog.close();
    }

    @Test
    void anAttemptStillRunningAtItsBoundIsInterruptedAndTheInterruptDoesNotLeak_RQ2() throws Exception {
        CompletableFuture<boolean[]> outcome = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            AttemptWatchdog.Watch w = watchdog.watch(50);
            boolean interrupted = false;
            try {
                // an attempt blocked until something ends it
                new java.util.concurrent.CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
            boolean fired = w.finish();
            outcome.complete(new boolean[] {interrupted, fired, Thread.currentThread().isInterrupted()});
        });
        boolean[] r = outcome.get(5, TimeUnit.SECONDS);
        assertThat(r[0]).as("the blocked attempt was interrupted").isTrue();
        assertThat(r[1]).as("finish reports the overrun").isTrue();
        assertThat(r[2]).as("no interrupt left on the thread").isFalse();
    }

    @Test
    void anAttemptThatEndsInTimeIsNeverInterrupted_RQ2() {
        AttemptWatchdog.Watch w = watchdog.watch(100);
        assertThat(watchdog.watched()).isEqualTo(1);

        assertThat(w.finish()).isFalse();

        // the patrol only fires watches it still holds: a finished one is gone from it
        assertThat(watchdog.watched()).as("a finished watch never fires").isZero();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }
}
