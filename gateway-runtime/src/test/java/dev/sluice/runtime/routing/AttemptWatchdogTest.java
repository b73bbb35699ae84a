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
                Thread.sleep(10_000);
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
    void anAttemptThatEndsInTimeIsNeverInterrupted_RQ2() throws Exception {
        CompletableFuture<boolean[]> outcome = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            AttemptWatchdog.Watch w = watchdog.watch(100);
            boolean fired = w.finish();
            boolean interruptedLater = false;
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                interruptedLater = true;
            }
            outcome.complete(new boolean[] {fired, interruptedLater});
        });
        boolean[] r = outcome.get(5, TimeUnit.SECONDS);
        assertThat(r[0]).isFalse();
        assertThat(r[1]).as("a finished watch never fires").isFalse();
    }
}
