package dev.sluice.runtime.upstream;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The idle keep-alive connections of {@link SocketUpstreamHttp}, per {@link Origin}, last in first
 * out: the most recently used connection serves next (warm, least likely closed by the upstream),
 * and the ones left idle at the bottom age out. A connection idle for {@code maxIdleNanos} is never
 * handed out: it is closed when met, whether on taking or, from the bottom of the stack, on giving
 * one back. At most {@code maxPerOrigin} idle connections are kept per origin; one more is closed.
 * Lock-free (request threads are virtual: no monitor held across anything).
 */
final class UpstreamPool implements AutoCloseable {

    private final int maxPerOrigin;
    private final long maxIdleNanos;
    private final LongSupplier nanos;
    private final ConcurrentHashMap<Origin, Idle> idle = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** One origin's idle connections. */
    private static final class Idle {
        final ConcurrentLinkedDeque<UpstreamConnection> stack = new ConcurrentLinkedDeque<>();
        final AtomicInteger size = new AtomicInteger();
    }

    /**
     * @param maxPerOrigin the most idle connections kept per origin
     * @param maxIdleNanos how long a connection may have been idle and still serve
     * @param nanos the monotonic clock ({@link System#nanoTime()} scale)
     */
    UpstreamPool(int maxPerOrigin, long maxIdleNanos, LongSupplier nanos) {
        this.maxPerOrigin = maxPerOrigin;
        this.maxIdleNanos = maxIdleNanos;
        this.nanos = nanos;
    }

    /**
     * An idle connection to the origin, marked reused, or null when there is none fresh enough.
     *
     * @param origin the origin
     * @return the connection, or null
     */
    UpstreamConnection take(Origin origin) {
        Idle q = idle.get(origin);
        if (q == null) {
            return null;
        }
        long now = nanos.getAsLong();
        for (UpstreamConnection c; (c = q.stack.pollFirst()) != null; ) {
            q.size.decrementAndGet();
            if (now - c.idleSince() < maxIdleNanos) {
                c.reuse();
                return c;
            }
            c.close();
        }
        return null;
    }

    /**
     * Keeps a connection whose exchange ended cleanly, or closes it when the origin has its fill.
     *
     * @param c the connection
     */
    void give(UpstreamConnection c) {
        Idle q = idle.computeIfAbsent(c.origin(), o -> new Idle());
        long now = nanos.getAsLong();
        c.idleSince(now);
        if (closed || q.size.incrementAndGet() > maxPerOrigin) {
            q.size.decrementAndGet();
            c.close();
            return;
        }
        q.stack.offerFirst(c);
        // the bottom of the stack ages out here, so an origin whose traffic fell keeps no stale sockets;
        // looked at in place: a connection taken off to be looked at would be missing for a taker meanwhile,
        // who would open a new one (under load: connections opened for nothing)
        for (UpstreamConnection last; (last = q.stack.peekLast()) != null && now - last.idleSince() >= maxIdleNanos; ) {
            if (q.stack.removeLastOccurrence(last)) {
                q.size.decrementAndGet();
                last.close();
            }
        }
        if (closed) {
            close();
        }
    }

    /** @return idle connections kept, over all origins (for tests) */
    int idleCount() {
        int n = 0;
        for (Idle q : idle.values()) {
            n += q.size.get();
        }
        return n;
    }

    /** Closes every idle connection; connections given back later are closed too. */
    @Override
    public void close() {
        closed = true;
        for (Idle q : idle.values()) {
            for (UpstreamConnection c; (c = q.stack.pollFirst()) != null; ) {
                q.size.decrementAndGet();
                c.close();
            }
        }
    }
}
