package dev.sluice.runtime.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.config.UpstreamLimits;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Issue 28: a whole answer's body is bounded by its silence and by its deadline; the bound is named. On a clock the test moves. */
class AnswerWatchTest {

    /** The watch's monotonic clock, moved by hand (its sweeper still looks every 100 ms of real time). */
    private final AtomicLong clock = new AtomicLong(-9_000_000_000L);

    private void advanceMs(long ms) {
        clock.addAndGet(ms * 1_000_000L);
    }

    @Test
    void theDefaultsAreThirtySecondsOfSilenceAndThreeMinutesInAll() {
        assertThat(UpstreamLimits.DEFAULT_BODY_IDLE_TIMEOUT_MS).isEqualTo(30_000);
        assertThat(UpstreamLimits.DEFAULT_ANSWER_DEADLINE_MS).isEqualTo(180_000);
        assertThat(UpstreamLimits.DEFAULTS.bodyIdleTimeoutMs()).isEqualTo(30_000);
        assertThat(UpstreamLimits.DEFAULTS.answerDeadlineMs()).isEqualTo(180_000);
        assertThat(AnswerBuffers.DEFAULTS.watch().bodyIdleMs()).isEqualTo(30_000);
        assertThat(AnswerBuffers.DEFAULTS.watch().deadlineMs()).isEqualTo(180_000);
    }

    @Test
    void theBoundsAreValidatedNamingTheSetting() {
        assertThatThrownBy(() -> UpstreamLimits.DEFAULTS.withAnswerTimes(999, 60_000))
                .hasMessageContaining("upstream.bodyIdleTimeoutMs");
        assertThatThrownBy(() -> UpstreamLimits.DEFAULTS.withAnswerTimes(1_000, 3_600_001))
                .hasMessageContaining("upstream.answerDeadlineMs");
    }

    @Test
    void theHeadersWaitIsTheRequestTimeoutUnlessTheDeadlineIsShorter() {
        AnswerWatch watch = new AnswerWatch(1_000, 5_000, System::nanoTime);
        assertThat(watch.headersWait(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
        assertThat(watch.headersWait(Duration.ofSeconds(110))).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aSilentBodyIsClosedAndItsReadFailsNamingTheSilenceBound() throws Exception {
        PipedOutputStream upstream = new PipedOutputStream();
        PipedInputStream socket = new PipedInputStream(upstream);
        AtomicInteger aborted = new AtomicInteger();
        InputStream body = new AnswerWatch(300, 60_000, clock::get).watch(socket, clock.get(), 60_000, () -> {
            aborted.incrementAndGet();
            close(upstream);
        });
        upstream.write("{\"id\":".getBytes());
        byte[] buf = new byte[64];
        assertThat(body.read(buf, 0, buf.length)).isEqualTo(6);
        // the read blocks on the silent "socket" until the watch closes it
        CompletableFuture<Integer> read = CompletableFuture.supplyAsync(() -> {
            try {
                return body.read(buf, 0, buf.length);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }, Executors.newVirtualThreadPerTaskExecutor());
        advanceMs(299);
        // the sweeper looks every 100 ms: it saw 299 ms of silence at least twice
        await().during(Duration.ofMillis(250)).atMost(Duration.ofSeconds(2)).until(() -> aborted.get() == 0);
        assertThat(read).isNotDone();
        advanceMs(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> aborted.get() == 1);
        assertThat(read).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .havingRootCause().isInstanceOf(SocketTimeoutException.class)
                .withMessageContaining("upstream.bodyIdleTimeoutMs").withMessageContaining("300 ms");
        assertThat(aborted).hasValue(1);
        assertThatThrownBy(() -> body.read(buf, 0, buf.length)).isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void bytesThatKeepComingKeepTheBodyWatchedPastTheSilenceBound() throws Exception {
        AtomicInteger aborted = new AtomicInteger();
        PipedOutputStream upstream = new PipedOutputStream();
        PipedInputStream socket = new PipedInputStream(upstream);
        InputStream body = new AnswerWatch(300, 60_000, clock::get).watch(socket, clock.get(), 60_000, aborted::incrementAndGet);
        byte[] buf = new byte[64];
        for (int i = 0; i < 4; i++) {
            advanceMs(250);
            upstream.write('x');
            assertThat(body.read(buf, 0, buf.length)).isEqualTo(1);
        }
        await().during(Duration.ofMillis(250)).atMost(Duration.ofSeconds(2)).until(() -> aborted.get() == 0);
        body.close();
    }

    @Test
    void aBodyThatLooksEndedAfterTheAbortStillFailsNamingTheDeadline() throws Exception {
        PipedOutputStream upstream = new PipedOutputStream();
        PipedInputStream socket = new PipedInputStream(upstream);
        // the deadline counts from the request: sent 60 s ago with a 1 s deadline, it has passed
        long sent = clock.get() - Duration.ofSeconds(60).toNanos();
        InputStream body = new AnswerWatch(60_000, 1_000, clock::get).watch(socket, sent, 60_000, () -> close(upstream));
        byte[] buf = new byte[64];
        // closing the writer makes the read return -1, as the JDK client's body does when cancelled
        assertThatThrownBy(() -> body.read(buf, 0, buf.length)).isInstanceOf(SocketTimeoutException.class)
                .hasMessageContaining("upstream.answerDeadlineMs");
    }

    @Test
    void aBodyReadToItsEndIsNoLongerWatched() throws Exception {
        int before = AnswerWatch.watched();
        InputStream body = new AnswerWatch(1_000, 1_000, clock::get).watch(new ByteArrayInputStream("{}".getBytes()), clock.get(), 1_000, () -> { });
        assertThat(AnswerWatch.watched()).isEqualTo(before + 1);
        assertThat(body.readAllBytes()).hasSize(2);
        assertThat(AnswerWatch.watched()).isEqualTo(before);
    }

    private static void close(java.io.Closeable c) {
        try {
            c.close();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
