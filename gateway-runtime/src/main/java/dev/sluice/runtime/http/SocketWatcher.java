package dev.sluice.runtime.http;

import dev.sluice.runtime.routing.ClientLiveness;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Watches one client connection for its close while a handler works (CO-3, issue 28): on the first
 * question, one virtual thread blocks in the connection's next read. End of stream or a reset there
 * means the client closed: questions answer so from then on, and the actions registered with
 * {@link #whenGone} run at once. Whatever the read returns (a pipelined request, or the end) is
 * handed to the connection as its next read ({@link #take}), so the connection never reads
 * concurrently with the watcher and loses no byte. A connection nobody asks about never starts one.
 */
final class SocketWatcher {

    /** What a finished watcher read: bytes, or null for end of stream, or the failure. */
    record Read(byte[] bytes, RuntimeException failure) {
    }

    private final Object lock = new Object();
    private final GoneActions goneActions = new GoneActions();
    private final String name;
    private final Supplier<byte[]> read;
    private CompletableFuture<Read> watcher;

    /**
     * @param name the watcher threads' name
     * @param read one blocking read of the socket (null at its end)
     */
    SocketWatcher(String name, Supplier<byte[]> read) {
        this.name = name;
        this.read = read;
    }

    /** @return false once the client is known to have closed or reset the connection */
    boolean connected() {
        Read r = watcher().getNow(null);
        return r == null || r.bytes() != null;
    }

    /** Runs the action the moment the watcher's read meets the client's close. */
    ClientLiveness.GoneWatch whenGone(Runnable action) {
        watcher();
        return goneActions.add(action);
    }

    /**
     * Hands the watcher's read (done or under way) to the connection as its own next read; the next
     * question starts a new one.
     *
     * @return the read, or null when no watcher runs
     */
    CompletableFuture<Read> take() {
        synchronized (lock) {
            CompletableFuture<Read> w = watcher;
            watcher = null;
            return w;
        }
    }

    private CompletableFuture<Read> watcher() {
        synchronized (lock) {
            if (watcher == null) {
                CompletableFuture<Read> started = new CompletableFuture<>();
                watcher = started;
                Thread.ofVirtual().name(name).start(() -> watch(started));
            }
            return watcher;
        }
    }

    private void watch(CompletableFuture<Read> started) {
        while (true) {
            try {
                byte[] bytes = read.get();
                started.complete(new Read(bytes, null));
                if (bytes == null) {
                    goneActions.gone();
                }
                return;
            } catch (RuntimeException e) {
                // the socket's read timeout closes stalled requests; a watcher just reads on
                if (!timedOut(e)) {
                    started.complete(new Read(null, e));
                    goneActions.gone();
                    return;
                }
            }
        }
    }

    /** Whether a read failed only because the socket's read timeout ran out. */
    static boolean timedOut(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
