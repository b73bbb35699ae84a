package dev.sluice.runtime.routing;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * SPEC RQ-2: bounds how long one attempt may run. An attempt runs on its request's thread; when it
 * is still running after its bound, that thread is interrupted, which ends a blocking upstream read
 * (the socket is closed) or wait. One daemon timer thread serves every attempt; nothing is
 * scheduled for an attempt that ends in time but a timer entry that is cancelled at once.
 */
final class AttemptWatchdog {

    private final ScheduledThreadPoolExecutor timer;

    AttemptWatchdog() {
        timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-attempt-watchdog");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Starts watching the calling thread.
     *
     * @param boundMs how long the attempt may run
     * @return the watch; {@link Watch#finish()} it when the attempt returns
     */
    Watch watch(long boundMs) {
        Watch w = new Watch(Thread.currentThread(), boundMs);
        w.future = timer.schedule(w::fire, boundMs, TimeUnit.MILLISECONDS);
        return w;
    }

    /** One attempt's watch. */
    static final class Watch {
        private final Thread thread;
        private final long boundMs;
        private ScheduledFuture<?> future;
        private boolean done;
        private boolean fired;

        private Watch(Thread thread, long boundMs) {
            this.thread = thread;
            this.boundMs = boundMs;
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
        synchronized boolean finish() {
            done = true;
            if (future != null) {
                future.cancel(false);
            }
            if (fired) {
                Thread.interrupted();
            }
            return fired;
        }
    }
}
