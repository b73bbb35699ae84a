package dev.sluice.runtime.routing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SPEC RQ-2: bounds how long one attempt may run. An attempt runs on its request's thread; when it
 * is still running after its bound, that thread is interrupted, which ends a blocking upstream read
 * (the socket is closed) or wait.
 *
 * <p>The same patrol ends an attempt whose client has left (issues 19, 28): once an attempt has run
 * for {@link #CLIENT_WATCH_AFTER_MS} ms, the patrol has its client's socket watched
 * ({@link ClientLiveness#whenGone}), and the client's close interrupts the attempt at once, as the
 * bound does — the upstream call is cut instead of running on for nobody until the upstream
 * answers. A client that left before that is seen at the patrol's next tick: within
 * {@link #CLIENT_WATCH_AFTER_MS} + {@link #TICK_MS} ms of the attempt's start.
 *
 * <p>Per attempt this costs one insertion into and one removal from a concurrent set: one daemon
 * thread looks over the running attempts every {@link #TICK_MS} ms, so no timer is scheduled, and
 * no thread woken, per attempt. Only an attempt still running after {@link #CLIENT_WATCH_AFTER_MS} ms
 * starts a socket watcher (one virtual thread parked in a read) — never a fast one. A bound is kept
 * to within {@link #TICK_MS} ms — bounds are seconds to minutes.
 */
final class AttemptWatchdog implements AutoCloseable {

    /** How often running attempts are checked, ms. */
    static final long TICK_MS = 100;
    /** An attempt's client is watched once the attempt has run this long (fast attempts never pay for it), ms. */
    static final long CLIENT_WATCH_AFTER_MS = 100;

    private final Set<Watch> running = ConcurrentHashMap.newKeySet();
    private final Thread patrol;

    AttemptWatchdog() {
        patrol = new Thread(this::patrol, "sluice-attempt-watchdog");
        patrol.setDaemon(true);
        patrol.start();
    }

    /** Stops the patrol thread; attempts still running are no longer bounded. */
    @Override
    public void close() {
        patrol.interrupt();
    }

    /**
     * Starts watching the calling thread.
     *
     * @param boundMs how long the attempt may run
     * @return the watch; {@link Watch#finish()} it when the attempt returns
     */
    Watch watch(long boundMs) {
        return watch(boundMs, ClientLiveness.ALWAYS);
    }

    /**
     * Starts watching the calling thread and its client.
     *
     * @param boundMs how long the attempt may run
     * @param client whether the request's client is still there
     * @return the watch; {@link Watch#finish()} it when the attempt returns
     */
    Watch watch(long boundMs, ClientLiveness client) {
        long now = System.nanoTime();
        Watch w = new Watch(Thread.currentThread(), boundMs, now + boundMs * 1_000_000L, client, now);
        running.add(w);
        return w;
    }

    /** Attempts being watched (for tests). */
    int watched() {
        return running.size();
    }

    private void patrol() {
        while (true) {
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (Watch w : running) {
                if (now - w.deadlineNanos >= 0) {
                    w.fire(false);
                    running.remove(w);
                } else if (w.client != ClientLiveness.ALWAYS && now - w.startNanos >= CLIENT_WATCH_AFTER_MS * 1_000_000L) {
                    w.watchClient();
                }
            }
        }
    }

    /** One attempt's watch. */
    final class Watch {
        private final Thread thread;
        private final long boundMs;
        private final long deadlineNanos;
        private final ClientLiveness client;
        private final long startNanos;
        private boolean done;
        private boolean fired;
        private boolean clientGone;
        /** The client's socket watch, once the patrol started it (only the patrol and finish touch it). */
        private ClientLiveness.GoneWatch gone;

        private Watch(Thread thread, long boundMs, long deadlineNanos, ClientLiveness client, long startNanos) {
            this.thread = thread;
            this.boundMs = boundMs;
            this.deadlineNanos = deadlineNanos;
            this.client = client == null ? ClientLiveness.ALWAYS : client;
            this.startNanos = startNanos;
        }

        /** @return whether the watch stopped the attempt because its client had left (valid after {@link #finish()}) */
        synchronized boolean clientGone() {
            return clientGone;
        }

        /** The bound, ms. */
        long boundMs() {
            return boundMs;
        }

        /** On the patrol's thread: has the client's close interrupt the attempt, once. */
        private void watchClient() {
            synchronized (this) {
                if (gone != null || done) {
                    return;
                }
                gone = ClientLiveness.GoneWatch.NONE;
            }
            ClientLiveness.GoneWatch g;
            try {
                g = client.whenGone(() -> {
                    fire(true);
                    running.remove(this);
                });
            } catch (RuntimeException e) {
                return;
            }
            boolean finished;
            synchronized (this) {
                finished = done;
                gone = g;
            }
            if (finished) {
                g.close();
            }
        }

        private synchronized void fire(boolean becauseClientLeft) {
            if (!done) {
                fired = true;
                clientGone = becauseClientLeft;
                thread.interrupt();
            }
        }

        /**
         * Ends the watch, on the watched thread. An interrupt the watch caused is cleared, so it
         * never leaks into what the thread does next.
         *
         * @return whether the watch stopped the attempt (its bound ran out, or its client left)
         */
        boolean finish() {
            running.remove(this);
            ClientLiveness.GoneWatch g;
            synchronized (this) {
                done = true;
                g = gone;
            }
            if (g != null) {
                // after this no close of the client interrupts the thread
                g.close();
            }
            synchronized (this) {
                if (fired) {
                    Thread.interrupted();
                }
                return fired;
            }
        }
    }
}
