package dev.sluice.runtime.stream;

import static dev.sluice.runtime.io.AnswerBuffers.DEFAULT_MAX_STREAM_BYTES;
import static dev.sluice.runtime.io.AnswerBuffers.DEFAULT_WATCH;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.io.AnswerBuffers;
import java.net.ProtocolException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Large stream frames are relayed one at a time and counted against the shared answer budget while
 * in flight (issue 29, point 2): a hostile upstream's events under {@code upstream.maxEventBytes}
 * cannot pile up in the pump's queue.
 */
class PumpTest {

    private static final int KIB = 1024;
    private static final long SECOND = 1_000_000_000L;

    /** {@code count} frames of {@code size} bytes, counting the reads. */
    private static final class Frames implements Pump.Source<byte[]> {
        final AtomicInteger read = new AtomicInteger();
        final int count;
        final int size;

        Frames(int count, int size) {
            this.count = count;
            this.size = size;
        }

        @Override
        public byte[] next() {
            if (read.get() == count) {
                return null;
            }
            read.incrementAndGet();
            return new byte[size];
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aLargeFrameIsNotQueuedBeforeTheConsumerIsDoneWithTheLast() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 512 * KIB, 64 * 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        Frames up = new Frames(5, 100 * KIB);
        try (Pump<byte[]> pump = new Pump<>(up, "t", b -> b.length, buffers)) {
            assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.Next.class);
            // the second is read, and waits: the first is still being written
            Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> up.read.get() == 2);
            assertThat(buffers.inUse()).isEqualTo(3L * 100 * KIB);

            assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.Next.class);
            Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> up.read.get() == 3);
            assertThat(buffers.inUse()).as("the first frame's room was given back").isEqualTo(3L * 100 * KIB);
        }
        assertThat(buffers.inUse()).as("closing gives back every frame's room").isZero();
    }

    @Test
    void smallFramesFlowFreelyAndHoldNoRoom() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 512 * KIB, 64 * 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        Frames up = new Frames(10, 1 * KIB);
        try (Pump<byte[]> pump = new Pump<>(up, "t", b -> b.length, buffers)) {
            Awaitility.await().atMost(Duration.ofSeconds(2)).until(() -> up.read.get() == 10);
            assertThat(buffers.inUse()).isZero();
            for (int i = 0; i < 10; i++) {
                assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.Next.class);
            }
            assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.End.class);
        }
    }

    @Test
    void aLargeFramePastTheSharedBudgetFailsTheStreamNamingTheSetting() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(256 * KIB, 512 * KIB, 400 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        long other = buffers.takeStreamed(100 * KIB);
        try (Pump<byte[]> pump = new Pump<>(new Frames(3, 200 * KIB), "t", b -> b.length, buffers)) {
            Pump.Item<byte[]> item = pump.poll(5 * SECOND);
            assertThat(item).isInstanceOf(Pump.Failed.class);
            assertThat(((Pump.Failed<byte[]>) item).failure()).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("upstream.answerBufferBytes 409600");
        }
        assertThat(buffers.inUse()).isEqualTo(other);
        buffers.release(other);
        // alone, a frame gets its room whatever the budget
        try (Pump<byte[]> pump = new Pump<>(new Frames(1, 200 * KIB), "t", b -> b.length, buffers)) {
            assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.Next.class);
        }
        assertThat(buffers.inUse()).isZero();
    }

    @Test
    void keptFramesHoldTheirRoomUntilReleased() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 512 * KIB, 64 * 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        try (Pump<byte[]> pump = new Pump<>(new Frames(2, 100 * KIB), "t", b -> b.length, buffers)) {
            assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.Next.class);
            pump.keep();
            assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.Next.class);
            assertThat(buffers.inUse()).isEqualTo(2 * 3L * 100 * KIB);
            pump.releaseKept();
            assertThat(buffers.inUse()).isEqualTo(3L * 100 * KIB);
        }
        assertThat(buffers.inUse()).isZero();
    }

    /** Frames handed over one by one by the test; {@code null} ends. */
    private static final class Gated implements Pump.Source<byte[]> {
        final java.util.concurrent.SynchronousQueue<byte[]> next = new java.util.concurrent.SynchronousQueue<>();

        @Override
        public byte[] next() {
            try {
                byte[] b = next.take();
                return b.length == 0 ? null : b;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
        }
    }

    @Test
    void theConsumerWaitsUntimedAndAFrameOrItsDeadlineEndsTheWait_I26() throws Exception {
        AnswerBuffers buffers = new AnswerBuffers(1024 * KIB, 512 * KIB, 64 * 1024 * KIB, DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
        Gated up = new Gated();
        try (Pump<byte[]> pump = new Pump<>(up, "t", b -> b.length, buffers)) {
            java.util.concurrent.atomic.AtomicReference<Object> got = new java.util.concurrent.atomic.AtomicReference<>();
            Thread consumer = Thread.ofVirtual().start(() -> {
                try {
                    got.set(pump.poll(30 * SECOND));
                } catch (InterruptedException e) {
                    got.set(e);
                }
            });
            // an untimed park: a timed one would schedule (and cancel) a task of the JDK's delay scheduler per event
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> consumer.getState() == Thread.State.WAITING);
            up.next.put(new byte[1]);
            consumer.join(Duration.ofSeconds(5));
            assertThat(got.get()).isInstanceOf(Pump.Next.class);

            // nothing comes: the wait ends at its deadline, to within the watch's tick
            long started = System.nanoTime();
            assertThat(pump.poll(200_000_000L)).isNull();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(200), Duration.ofSeconds(3));
            up.next.put(new byte[0]);
            assertThat(pump.poll(5 * SECOND)).isInstanceOf(Pump.End.class);
        }
    }
}
