package dev.sluice.runtime.io;

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Bounds how long a whole (not streamed) upstream answer may hold an attempt (issue 28): no byte of
 * its body for {@code upstream.bodyIdleTimeoutMs} once its headers came, or its last byte not read
 * {@code upstream.answerDeadlineMs} after its request was sent, ends it. The body is then closed
 * (which ends a read blocked on the socket, on either upstream client) and every read fails with a
 * {@link SocketTimeoutException} naming the bound: the attempt fails as an upstream timeout and
 * fails over, like one that never answered.
 *
 * <p>Cost per answer: one insertion into and one removal from a concurrent set, and one
 * {@code nanoTime} per read. One daemon thread, shared by the whole process, looks over the answers
 * being read every {@link #TICK_MS} ms, so no timer is scheduled and no thread is woken per answer;
 * a bound is kept to within a tick.
 */
public final class AnswerWatch {

    /** How often the answers being read are looked over, ms. */
    static final long TICK_MS = 100;

    private final long bodyIdleMs;
    private final long deadlineMs;
    /** The monotonic clock (System.nanoTime but in tests, which move it by hand). */
    private final LongSupplier nanos;

    /**
     * The bounds on a given monotonic clock.
     *
     * @param bodyIdleMs the longest silence inside a body, ms
     * @param deadlineMs the longest time from request to last byte, ms
     * @param nanos the clock, nanoseconds on {@link System#nanoTime()}'s scale ({@code System::nanoTime} but in tests)
     */
    public AnswerWatch(long bodyIdleMs, long deadlineMs, LongSupplier nanos) {
        if (bodyIdleMs <= 0 || deadlineMs <= 0) {
            throw new IllegalArgumentException("the answer bounds must be positive, got " + bodyIdleMs + " and " + deadlineMs);
        }
        this.bodyIdleMs = bodyIdleMs;
        this.deadlineMs = deadlineMs;
        this.nanos = nanos;
    }

    /** @return the longest silence inside a body, ms ({@code upstream.bodyIdleTimeoutMs}) */
    public long bodyIdleMs() {
        return bodyIdleMs;
    }

    /** @return the longest time from request to last byte, ms ({@code upstream.answerDeadlineMs}) */
    public long deadlineMs() {
        return deadlineMs;
    }

    /**
     * How long a whole answer's request may wait for its headers: the request's own timeout, or less
     * when the answer deadline is shorter.
     *
     * @param requestTimeout the request's timeout ({@code upstream.headersTimeoutMs})
     * @return the wait
     */
    public java.time.Duration headersWait(java.time.Duration requestTimeout) {
        return requestTimeout.toMillis() <= deadlineMs ? requestTimeout : java.time.Duration.ofMillis(deadlineMs);
    }

    /**
     * Watches a whole answer's body from now (its headers just came).
     *
     * @param body the body
     * @param sentNanos when the request was sent ({@link System#nanoTime()})
     * @param headersBoundMs the request's own bound on the body from its headers (issue 19: its timeout)
     * @param abort closes the answer; called at most once, on the watch's thread
     * @return the watched body; reading it to its end or closing it ends the watch
     */
    public InputStream watch(InputStream body, long sentNanos, long headersBoundMs, Runnable abort) {
        long now = nanos.getAsLong();
        long byDeadline = sentNanos + deadlineMs * 1_000_000L;
        long byHeaders = now + headersBoundMs * 1_000_000L;
        Body b = byDeadline - byHeaders <= 0
                ? new Body(body, abort, now, byDeadline, "the upstream answer was not whole " + deadlineMs
                        + " ms after its request (upstream.answerDeadlineMs)")
                : new Body(body, abort, now, byHeaders, "the upstream answer was not whole within " + headersBoundMs
                        + " ms of its headers (upstream.headersTimeoutMs)");
        Sweeper.ANSWERS.add(b);
        Sweeper.start();
        return b;
    }

    /** @return answers being watched, over the process (for tests) */
    static int watched() {
        return Sweeper.ANSWERS.size();
    }

    /** The one thread that looks over every answer being read. */
    private static final class Sweeper {
        static final Set<Body> ANSWERS = ConcurrentHashMap.newKeySet();
        private static volatile Thread thread;

        static void start() {
            if (thread == null) {
                synchronized (Sweeper.class) {
                    if (thread == null) {
                        Thread t = new Thread(Sweeper::sweep, "sluice-answer-watch");
                        t.setDaemon(true);
                        t.start();
                        thread = t;
                    }
                }
            }
        }

        private static void sweep() {
            while (true) {
                try {
                    Thread.sleep(TICK_MS);
                } catch (InterruptedException e) {
                    return;
                }
                for (Body b : ANSWERS) {
                    b.check();
                }
            }
        }
    }

    /** One answer's body. */
    private final class Body extends InputStream {
        private final InputStream in;
        private final Runnable abort;
        private final long deadlineNanos;
        private final String deadlineMessage;
        private volatile long lastReadNanos;
        private volatile String expired;

        Body(InputStream in, Runnable abort, long now, long deadlineNanos, String deadlineMessage) {
            this.in = in;
            this.abort = abort;
            this.lastReadNanos = now;
            this.deadlineNanos = deadlineNanos;
            this.deadlineMessage = deadlineMessage;
        }

        /** On the sweeper's thread. */
        void check() {
            long now = nanos.getAsLong();
            String why = null;
            if (now - deadlineNanos >= 0) {
                why = deadlineMessage;
            } else if (now - lastReadNanos >= bodyIdleMs * 1_000_000L) {
                why = "the upstream sent no byte of its answer for " + bodyIdleMs + " ms (upstream.bodyIdleTimeoutMs)";
            }
            if (why != null) {
                expired = why;
                Sweeper.ANSWERS.remove(this);
                try {
                    abort.run();
                } catch (RuntimeException e) {
                    // the read fails on the expired flag either way
                }
            }
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            failIfExpired(null);
            int n;
            try {
                n = in.read(b, off, len);
            } catch (IOException | RuntimeException e) {
                failIfExpired(e);
                throw e;
            }
            // after the abort a body may look ended (the JDK client's does): the bound says why
            failIfExpired(null);
            if (n > 0) {
                lastReadNanos = nanos.getAsLong();
            } else if (n < 0) {
                Sweeper.ANSWERS.remove(this);
            }
            return n;
        }

        @Override
        public int available() throws IOException {
            return in.available();
        }

        private void failIfExpired(Exception cause) throws SocketTimeoutException {
            String why = expired;
            if (why != null) {
                SocketTimeoutException e = new SocketTimeoutException(why);
                if (cause != null) {
                    e.initCause(cause);
                }
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            Sweeper.ANSWERS.remove(this);
            in.close();
        }
    }
}
