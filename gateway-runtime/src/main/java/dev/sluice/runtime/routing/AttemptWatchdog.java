package dev.sluice.runtime.routing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SPEC RQ-2: bounds how long one attempt may run. An attempt runs on its request's thread; when it
 * is still running after its bound, that thread is interrupted, which ends a blocking upstream read
 * (the socket is closed) or wait.
 *
 * <p>The same patrol ends an attempt whose client has left (issue 19): once an attempt has run for
 * {@link #CLIENT_CHECK_AFTER_MS} ms, its client's liveness is asked every few ticks, and a client that
 * is gone interrupts the attempt as the bound does — the upstream call is cut instead of running on
 * for nobody until the upstream answers.
 *
 * <p>Per attempt this costs one insertion into and one removal from a concurrent set: one daemon
 * thread looks over the running attempts every {@link #TICK_MS} ms, so no timer is scheduled, and
 * no thread woken, per attempt. A bound is therefore kept to within {@link #TICK_MS} ms — bounds are
 * seconds to minutes.
 */
final class AttemptWatchdog implements AutoCloseable {

    /** How often running attempts are checked, ms. */
    static final long TICK_MS = 100;
    /** An attempt's client is watched once the attempt has run this long (fast attempts never pay for it), ms. */
    static final long CLIENT_CHECK_AFTER_MS = 500;
    /** The client is asked every this many ticks. */
    static final int CLIENT_CHECK_TICKS = 3;

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
        long tick = 0;
        while (true) {
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            boolean askClients = ++tick % CLIENT_CHECK_TICKS == 0;
            for (Watch w : running) {
                if (now - w.deadlineNanos >= 0) {
                    w.fire(false);
                    running.remove(w);
                } else if (askClients && w.client != ClientLiveness.ALWAYS && now - w.startNanos >= CLIENT_CHECK_AFTER_MS * 1_000_000L
                        && !connected(w.client)) {
                    w.fire(true);
                    running.remove(w);
                }
            }
        }
    }

    private static boolean connected(ClientLiveness client) {
        try {
            return client.connected();
        } catch (RuntimeException e) {
            return true;
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
            synchronized (this) {
                done = true;
                if (fired) {
                    Thread.interrupted();
                }
                return fired;
            }
        }
    }
}
