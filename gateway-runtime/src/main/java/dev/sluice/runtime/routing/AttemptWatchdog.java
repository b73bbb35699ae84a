package dev.sluice.runtime.routing;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * SPEC RQ-2: bounds how long one attempt may run. An attempt runs on its request's thread; when it
 * is still running after its bound, that thread is interrupted, which ends a blocking upstream read
 * (the socket is closed) or wait.
 *
 * <p>Per attempt this costs one insertion into and one removal from a concurrent set: one daemon
 * thread looks over the running attempts every {@link #TICK_MS} ms, so no timer is scheduled, and
 * no thread woken, per attempt. A bound is therefore kept to within {@link #TICK_MS} ms — bounds are
 * seconds to minutes.
 */
final class AttemptWatchdog implements AutoCloseable {

    /** How often running attempts are checked, ms. */
    static final long TICK_MS = 100;

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
        Watch w = new Watch(Thread.currentThread(), boundMs, System.nanoTime() + boundMs * 1_000_000L);
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
                    w.fire();
                    running.remove(w);
                }
            }
        }
    }

    /** One attempt's watch. */
    final class Watch {
        private final Thread thread;
        private final long boundMs;
        private final long deadlineNanos;
        private boolean done;
        private boolean fired;

        private Watch(Thread thread, long boundMs, long deadlineNanos) {
            this.thread = thread;
            this.boundMs = boundMs;
            this.deadlineNanos = deadlineNanos;
        }

        /** The bound, ms. */
        long boundMs() {
            return boundMs;
        }

        private synchronized void fire() {
            if (!done) {
                fired = true;
                thread.interrupt();
            }
        }

        /**
         * Ends the watch, on the watched thread. An interrupt the watch caused is cleared, so it
         * never leaks into what the thread does next.
         *
         * @return whether the bound ran out while the attempt was running
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
