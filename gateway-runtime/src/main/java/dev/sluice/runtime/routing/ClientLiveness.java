package dev.sluice.runtime.routing;

/**
 * Whether the client that sent a request is still there to read its answer. A request that
 * waits (a combo waiting out a cooldown, CO-3) asks between short sleeps and gives up as soon as
 * the answer is {@code false}: nobody would read what it produced.
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
}
