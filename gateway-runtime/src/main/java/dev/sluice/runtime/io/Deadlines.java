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
 * (or blocks in its read) untimed, and leaves the set when the wait ends; one daemon thread,
 * shared by the process, looks over the set every {@link #TICK_MS} ms and {@linkplain
 * Waiter#expire() expires} the waits past their deadline (a read's socket is closed, a parked
 * thread unparked). A deadline is kept to within a tick. The thread parks when no wait has been in
 * progress for {@link #IDLE_TICKS} ticks, and the next wait wakes it, so an idle server has no
 * timer running.
 *
 * <p>Unlike the client side's {@code OpenConnections} (deadline fields of connections listed for
 * their lifetime) a waiter is in the set only while it waits — a set insertion and removal per wait
 * (~0.1–0.2 µs) — so a connection that is never closed (a plugin that drops an answer unread) is not
 * held here: it stays collectable, and its socket is closed by the JDK's cleaner.
 */
public final class Deadlines {

    /** How often the waits in progress are looked over, ms. */
    static final long TICK_MS = 10;
    /** Ticks without a wait in progress after which the thread parks until the next wait. */
    static final int IDLE_TICKS = 100;

    /** Something waiting with a deadline. */
    public interface Waiter {
        /** @return when its wait ends, {@link System#nanoTime()} scale */
        long deadline();

        /** Ends its wait (closes a socket, unparks a thread); on the watch's thread, may come more than once. */
        void expire();
    }

    private static final Set<Waiter> WAITING = ConcurrentHashMap.newKeySet();
    private static volatile Thread thread;
    /** Set while the thread is parked (or about to park) for want of waits. */
    private static volatile boolean asleep;

    private Deadlines() {
    }

    /**
     * A wait begins: watched until {@link #leave}.
     *
     * @param w the waiter, its deadline set
     */
    public static void enter(Waiter w) {
        WAITING.add(w);
        if (thread == null) {
            start();
        } else if (asleep) {
            asleep = false;
            LockSupport.unpark(thread);
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

    /** @return whether the thread is parked for want of waits (for tests) */
    static boolean asleep() {
        return asleep;
    }

    private static synchronized void start() {
        if (thread == null) {
            Thread t = new Thread(Deadlines::sweep, "sluice-deadlines");
            t.setDaemon(true);
            t.start();
            thread = t;
        }
    }

    private static void sweep() {
        int idle = 0;
        while (true) {
            LockSupport.parkNanos(TICK_MS * 1_000_000L);
            if (!WAITING.isEmpty()) {
                idle = 0;
                long now = System.nanoTime();
                for (Waiter w : WAITING) {
                    if (now - w.deadline() >= 0) {
                        w.expire();
                    }
                }
            } else if (++idle >= IDLE_TICKS) {
                asleep = true;
                // a wait that began before it saw the flag is in the set; one after it wakes us
                while (asleep && WAITING.isEmpty()) {
                    LockSupport.park();
                }
                asleep = false;
                idle = 0;
            }
        }
    }
}
