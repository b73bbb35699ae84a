package dev.sluice.runtime.routing;

/**
 * Whether the client that sent a request is still there to read its answer. A request that
 * waits (a combo waiting out a cooldown, CO-3) asks between short sleeps and gives up as soon as
 * the answer is {@code false}: nobody would read what it produced. Work that blocks (an attempt
 * waiting for its upstream, a stream being relayed) is told instead, through {@link #whenGone}, the
 * moment the client's socket closes (issue 28).
 */
@FunctionalInterface
public interface ClientLiveness {

    /** For requests with no connection to watch (tests, other protocols): always there. */
    ClientLiveness ALWAYS = () -> true;

    /**
     * Asks; cheap enough to call every 100 ms.
     *
     * @return false once the client is known to have closed or reset its connection
     */
    boolean connected();

    /**
     * Runs {@code action} once, on another thread, as soon as the client is known to have gone — at
     * once when it already has. Nothing runs once the returned watch is closed (closing waits for an
     * action already running). Clients that cannot be watched never run it.
     *
     * @param action what to do (cheap and non-blocking: an interrupt, a flag)
     * @return the watch; close it when the work it guards ends
     */
    default GoneWatch whenGone(Runnable action) {
        return GoneWatch.NONE;
    }

    /** A registration made with {@link #whenGone}. */
    interface GoneWatch extends AutoCloseable {

        /** A watch that never fires. */
        GoneWatch NONE = () -> { };

        /** Stops the watch: its action does not run after this returns. */
        @Override
        void close();
    }
}
