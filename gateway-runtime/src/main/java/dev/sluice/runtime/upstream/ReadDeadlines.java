package dev.sluice.runtime.upstream;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * Bounds every read of an upstream connection without a socket read timeout (issue 26). A read
 * with {@code SO_TIMEOUT} parks its virtual thread with a timeout, and each timed park schedules
 * and then cancels a task of the JDK's delay scheduler, waking that scheduler's thread twice per
 * read: 10 µs of CPU per request at c64 and 18 µs at c1, and 9 % more throughput at c64 without it
 * (same run, {@code bench/run.sh --quick}). Here a connection that begins a blocking read notes
 * its deadline and enters a concurrent set, and leaves it when the read returns; one daemon
 * thread, shared by the process, looks over the set every {@link #TICK_MS} ms and closes the
 * socket of a read past its deadline, which ends the blocked read; the connection then reports a
 * {@link java.net.SocketTimeoutException} as the socket would have. A bound is kept to within a
 * tick. The thread parks when no read has been in progress for {@link #IDLE_TICKS} ticks, and the
 * next read wakes it, so an idle server has no timer running.
 *
 * <p>Unlike the client side's {@code OpenConnections} (deadline fields of connections listed for
 * their lifetime) a connection is in the set only while it reads — a set insertion and removal per
 * read (~0.1–0.2 µs) — so a connection that is never closed (a plugin that drops an answer
 * unread) is not held here: it stays collectable, and its socket is closed by the JDK's cleaner.
 */
final class ReadDeadlines {

    /** How often the reads in progress are looked over, ms. */
    static final long TICK_MS = 10;
    /** Ticks without a read in progress after which the thread parks until the next read. */
    static final int IDLE_TICKS = 100;

    /** A connection blocked in a read. */
    interface Reader {
        /** @return when its read times out, {@link System#nanoTime()} scale */
        long readDeadline();

        /** Ends its read as timed out (closes its socket); on the watch's thread, idempotent. */
        void expire();
    }

    private static final Set<Reader> READING = ConcurrentHashMap.newKeySet();
    private static volatile Thread thread;
    /** Set while the thread is parked (or about to park) for want of reads. */
    private static volatile boolean asleep;

    private ReadDeadlines() {
    }

    /**
     * A read begins: watched until {@link #done}.
     *
     * @param r the connection, its deadline set
     */
    static void reading(Reader r) {
        READING.add(r);
        if (thread == null) {
            start();
        } else if (asleep) {
            asleep = false;
            LockSupport.unpark(thread);
        }
    }

    /**
     * The read returned (or failed).
     *
     * @param r the connection
     */
    static void done(Reader r) {
        READING.remove(r);
    }

    /** @return reads being watched, over the process (for tests) */
    static int watched() {
        return READING.size();
    }

    /** @return whether the thread is parked for want of reads (for tests) */
    static boolean asleep() {
        return asleep;
    }

    private static synchronized void start() {
        if (thread == null) {
            Thread t = new Thread(ReadDeadlines::sweep, "sluice-read-deadlines");
            t.setDaemon(true);
            t.start();
            thread = t;
        }
    }

    private static void sweep() {
        int idle = 0;
        while (true) {
            LockSupport.parkNanos(TICK_MS * 1_000_000L);
            if (!READING.isEmpty()) {
                idle = 0;
                long now = System.nanoTime();
                for (Reader r : READING) {
                    if (now - r.readDeadline() >= 0) {
                        r.expire();
                    }
                }
            } else if (++idle >= IDLE_TICKS) {
                asleep = true;
                // a read that began before it saw the flag is in the set; one after it wakes us
                while (asleep && READING.isEmpty()) {
                    LockSupport.park();
                }
                asleep = false;
                idle = 0;
            }
        }
    }
}
