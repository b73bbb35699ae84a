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

    /** A client whose socket close the test plays: it records the watch the patrol asked for. */
    private static final class PlayedClient implements ClientLiveness {
        final java.util.concurrent.atomic.AtomicReference<Runnable> action = new java.util.concurrent.atomic.AtomicReference<>();
        final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

        @Override
        public boolean connected() {
            return true;
        }

        @Override
        public GoneWatch whenGone(Runnable a) {
            action.set(a);
            return () -> closed.set(true);
        }
    }

    @Test
    void aClientsCloseInterruptsTheAttemptAtOnceOnceItIsWatched_issue28() throws Exception {
        PlayedClient client = new PlayedClient();
        CompletableFuture<boolean[]> outcome = new CompletableFuture<>();
        java.util.concurrent.CountDownLatch blocked = new java.util.concurrent.CountDownLatch(1);
        Thread.ofVirtual().start(() -> {
            AttemptWatchdog.Watch w = watchdog.watch(60_000, client);
            boolean interrupted = false;
            try {
                blocked.countDown();
                new java.util.concurrent.CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
            boolean fired = w.finish();
            outcome.complete(new boolean[] {interrupted, fired, w.clientGone(), Thread.currentThread().isInterrupted()});
        });
        blocked.await();
        // the patrol subscribes an attempt that has run CLIENT_WATCH_AFTER_MS
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2)).until(() -> client.action.get() != null);
        client.action.get().run(); // the socket closed
        boolean[] r = outcome.get(1, TimeUnit.SECONDS);
        assertThat(r[0]).as("the blocked attempt was interrupted by the close, not by its bound").isTrue();
        assertThat(r[1]).isTrue();
        assertThat(r[2]).as("because its client left").isTrue();
        assertThat(r[3]).as("no interrupt left on the thread").isFalse();
        assertThat(client.closed).as("the socket watch was closed with the attempt").isTrue();
    }

    @Test
    void aFastAttemptNeverHasItsClientWatched_issue28() {
        PlayedClient client = new PlayedClient();
        AttemptWatchdog.Watch w = watchdog.watch(60_000, client);
        assertThat(w.finish()).isFalse();
        assertThat(client.action.get()).as("no socket watcher for an attempt that ended at once").isNull();
    }
}
