package dev.sluice.runtime.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.LongSupplier;

/**
 * The client connections of one listener, oldest first, with what each is doing (issue 29): it
 * closes a connection whose read outlived its phase's deadline (no first byte, a request head that
 * never completes, an idle keep-alive, a body that stopped arriving), and makes room at the cap by
 * closing the oldest connection that is waiting for a request — one that never completed a head
 * first, then an idle keep-alive — so that a client that speaks at once is served while a flood of
 * silent connections holds the cap. Only when every connection is inside a request is a new one
 * refused.
 *
 * <p>A connection's own thread writes its phase and its read deadline (two field writes per read);
 * admission and removal take a lock held for a list link; {@link #sweep()} runs on one patrol
 * thread, so no read pays a map update and no connection has a timer.
 */
final class OpenConnections {

    /** What a connection is doing; its deadline and whether it may be closed to make room follow. */
    enum Phase {
        /** Accepted, not a byte yet: bounded by the first-byte timeout from its acceptance. */
        NEW,
        /** Bytes of a request head arrived, the handler has not started: bounded by the head timeout from its first byte. */
        HEAD,
        /** A handler runs: each read (the body) is bounded by the idle timeout. */
        BUSY,
        /** Between requests (keep-alive): each read is bounded by the idle timeout. */
        IDLE
    }

    /**
     * The open connections of every live listener, swept by one daemon thread; a listener whose
     * server is gone drops out with it (weak keys), so servers need no stop hook here.
     */
    private static final Set<OpenConnections> PATROLLED = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
    /** How often deadlines are checked: a deadline is met within this much. */
    static final long PATROL_MILLIS = 200;

    static {
        Thread patrol = new Thread(OpenConnections::patrol, "sluice-stalled-reads");
        patrol.setDaemon(true);
        patrol.start();
    }

    /**
     * Has the patrol thread sweep these connections from now on.
     *
     * @param open a listener's connections
     */
    static void patrol(OpenConnections open) {
        PATROLLED.add(open);
    }

    private static void patrol() {
        while (true) {
            try {
                Thread.sleep(PATROL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            List<OpenConnections> all;
            synchronized (PATROLLED) {
                all = new ArrayList<>(PATROLLED);
            }
            for (OpenConnections o : all) {
                try {
                    o.sweep();
                } catch (RuntimeException e) {
                    // one listener's failure must not end the patrol of every listener
                    System.getLogger(OpenConnections.class.getName()).log(System.Logger.Level.WARNING, "connection patrol: " + e);
                }
            }
        }
    }

    /** A read deadline that means "not reading". */
    static final long NOT_READING = Long.MIN_VALUE;

    /** One open connection: its phase, its read deadline and its place in the list. */
    abstract static class Entry {
        final long acceptedAt;
        /** Written by the connection's thread, read by admission and the patrol. */
        volatile Phase phase = Phase.NEW;
        /** When the current request's head began (connection thread only). */
        long headStartedAt;
        /** When the read in progress must end by, or {@link #NOT_READING}. */
        volatile long readDeadline = NOT_READING;
        private Entry prev;
        private Entry next;
        private boolean listed;

        Entry(long acceptedAt) {
            this.acceptedAt = acceptedAt;
        }

        /** Closes the connection's socket: its blocked read fails and its handler ends. */
        abstract void close();
    }

    private final long firstByteNanos;
    private final long headNanos;
    private final long idleNanos;
    private final int max;
    private final LongSupplier nanos;
    private final Object lock = new Object();
    private Entry oldest;
    private Entry newest;
    private int size;

    /**
     * @param firstByteNanos how long a new connection may stay silent
     * @param headNanos how long a request head may take from its first byte
     * @param idleNanos how long one read between requests or of a body may block (0 = no bound)
     * @param max the most connections open at once
     * @param nanos the monotonic clock
     */
    OpenConnections(long firstByteNanos, long headNanos, long idleNanos, int max, LongSupplier nanos) {
        this.firstByteNanos = firstByteNanos;
        this.headNanos = headNanos;
        this.idleNanos = idleNanos;
        this.max = max;
        this.nanos = nanos;
    }

    /** @return the monotonic time now */
    long now() {
        return nanos.getAsLong();
    }

    /**
     * Adds a new connection, first closing the one that makes room for it when the cap is reached.
     *
     * @param e the new connection
     * @return false when every open connection is inside a request: the new one is refused
     */
    boolean admit(Entry e) {
        Entry victim = null;
        synchronized (lock) {
            if (size >= max) {
                victim = victim();
                if (victim == null) {
                    return false;
                }
                unlink(victim);
            }
            link(e);
        }
        if (victim != null) {
            victim.close();
        }
        return true;
    }

    /**
     * Forgets a connection that ended (idempotent).
     *
     * @param e the connection
     */
    void remove(Entry e) {
        synchronized (lock) {
            if (e.listed) {
                unlink(e);
            }
        }
    }

    /** @return how many connections are open */
    int size() {
        synchronized (lock) {
            return size;
        }
    }

    /**
     * The time a read the connection starts now must end by.
     *
     * @param e the connection
     * @param now the monotonic time now
     * @return the deadline
     */
    long deadline(Entry e, long now) {
        return switch (e.phase) {
            case NEW -> e.acceptedAt + firstByteNanos;
            case HEAD -> idleNanos > 0 ? earlier(e.headStartedAt + headNanos, now + idleNanos) : e.headStartedAt + headNanos;
            case BUSY, IDLE -> idleNanos > 0 ? now + idleNanos : NOT_READING;
        };
    }

    /** Closes every connection whose read is past its deadline; run by the patrol. */
    void sweep() {
        long now = nanos.getAsLong();
        List<Entry> expired = null;
        synchronized (lock) {
            for (Entry e = oldest; e != null; ) {
                Entry next = e.next;
                long d = e.readDeadline;
                if (d != NOT_READING && now - d >= 0) {
                    unlink(e);
                    if (expired == null) {
                        expired = new ArrayList<>();
                    }
                    expired.add(e);
                }
                e = next;
            }
        }
        if (expired != null) {
            expired.forEach(Entry::close);
        }
    }

    /** The oldest connection waiting on an incomplete request, else the oldest idle one, else null. */
    private Entry victim() {
        Entry idle = null;
        for (Entry e = oldest; e != null; e = e.next) {
            Phase p = e.phase;
            if (p == Phase.NEW || p == Phase.HEAD) {
                return e;
            }
            if (p == Phase.IDLE && idle == null) {
                idle = e;
            }
        }
        return idle;
    }

    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b;
    }

    private void link(Entry e) {
        e.prev = newest;
        e.next = null;
        if (newest == null) {
            oldest = e;
        } else {
            newest.next = e;
        }
        newest = e;
        e.listed = true;
        size++;
    }

    private void unlink(Entry e) {
        if (e.prev == null) {
            oldest = e.next;
        } else {
            e.prev.next = e.next;
        }
        if (e.next == null) {
            newest = e.prev;
        } else {
            e.next.prev = e.prev;
        }
        e.prev = null;
        e.next = null;
        e.listed = false;
        size--;
    }
}
