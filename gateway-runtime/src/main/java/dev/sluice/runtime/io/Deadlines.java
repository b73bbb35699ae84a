package dev.sluice.runtime.io;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends waits that outlive their deadline without a timer per wait (issue 26): the reads of
 * upstream connections, and the request thread's wait for a stream's next event. A timed wait of a
 * virtual thread ({@code SO_TIMEOUT} on a socket read, {@code poll(timeout)} on a queue) parks it
 * with a timeout, and each timed park schedules and then cancels a task of the JDK's delay
 * scheduler, waking that scheduler's thread twice per wait: for a non-streaming request that was
 * 10 µs of CPU at c64 and 18 µs at c1, and 9 % of the c64 throughput (same run, {@code bench/run.sh
 * --quick}). Here a thread that begins a wait with a deadline enters a concurrent set and parks
 * (or blocks in its read) untimed, and leaves the set when the wait ends. One daemon thread,
 * shared by the process, sleeps until the earliest deadline in the set and then {@linkplain
 * Waiter#expire() expires} the waits past theirs (a read's socket is closed, a parked thread
 * unparked), taking them off the set. A wait that begins with a deadline earlier than the one the
 * thread sleeps for wakes it; the others — nearly all: a read's bound is the same for every read,
 * so a later read ends later — cost no wake. Without waits for a second the thread sleeps until
 * the next wait wakes it, so an idle server has no timer running.
 *
 * <p>Unlike the client side's {@code OpenConnections} (deadline fields of connections listed for
 * their lifetime) a waiter is in the set only while it waits — a set insertion and removal per wait
 * (~0.1–0.2 µs) — so a connection that is never closed (a plugin that drops an answer unread) is not
 * held here: it stays collectable, and its socket is closed by the JDK's cleaner.
 */
public final class Deadlines {

    /** Without waits for this long, the thread sleeps until a wait wakes it, ns. */
    static final long IDLE_NANOS = 1_000_000_000L;
    /** "Not before the next wait": further than any deadline (146 years). */
    private static final long FAR_NANOS = Long.MAX_VALUE / 2;

    /** Something waiting with a deadline. */
    public interface Waiter {
        /** @return when its wait ends, {@link System#nanoTime()} scale; fixed while it is in the set */
        long deadline();

        /** Ends its wait (closes a socket, unparks a thread); on the watch's thread, once per wait. */
        void expire();
    }

    private static final System.Logger LOG = System.getLogger(Deadlines.class.getName());
    private static final Set<Waiter> WAITING = ConcurrentHashMap.newKeySet();
    private static volatile Thread thread;
    /** When the thread wakes next ({@link System#nanoTime()} scale). */
    private static volatile long nextWake;

    private Deadlines() {
    }

    /**
     * A wait begins: watched until {@link #leave} (or until it expires).
     *
     * @param w the waiter, its deadline set
     */
    public static void enter(Waiter w) {
        WAITING.add(w);
        Thread t = thread;
        if (t == null) {
            start();
        } else if (w.deadline() - nextWake < 0) {
            LockSupport.unpark(t);
        }
    }

    /**
     * The wait ended.
     *
     * @param w the waiter
     */
    public static void leave(Waiter w) {
        WAITING.remove(w);
    }

    /** @return waits being watched, over the process (for tests) */
    static int watched() {
        return WAITING.size();
    }

    /** @return how long until the thread wakes, ns (for tests) */
    static long sleepsFor() {
        return nextWake - System.nanoTime();
    }

    private static synchronized void start() {
        if (thread == null) {
            nextWake = System.nanoTime();
            Thread t = new Thread(Deadlines::sweep, "sluice-deadlines");
            t.setDaemon(true);
            t.start();
            thread = t;
        }
    }

    private static void sweep() {
        long lastWaiting = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            long earliest = now + FAR_NANOS;
            boolean waiting = false;
            for (Waiter w : WAITING) {
                long d = w.deadline();
                if (now - d >= 0) {
                    WAITING.remove(w);
                    expire(w);
                } else {
                    waiting = true;
                    if (d - earliest < 0) {
                        earliest = d;
                    }
                }
            }
            if (waiting) {
                lastWaiting = now;
            } else if (now - lastWaiting < IDLE_NANOS) {
                earliest = lastWaiting + IDLE_NANOS;
            }
            nextWake = earliest;
            // a wait that entered during the look-over read the former nextWake: look once more
            if (earlierThan(earliest)) {
                continue;
            }
            long sleep = earliest - System.nanoTime();
            if (sleep > 0) {
                LockSupport.parkNanos(sleep);
            }
        }
    }

    /** Expires one wait; a failure is logged, never the end of the thread that bounds every other wait. */
    private static void expire(Waiter w) {
        try {
            w.expire();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.WARNING, "a wait past its deadline could not be ended: " + e, e);
        }
    }

    private static boolean earlierThan(long wake) {
        for (Waiter w : WAITING) {
            if (w.deadline() - wake < 0) {
                return true;
            }
        }
        return false;
    }
}
