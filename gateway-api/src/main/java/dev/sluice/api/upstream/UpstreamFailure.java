package dev.sluice.api.upstream;

/**
 * Why an upstream attempt failed: the upstream answered with an error status
 * ({@link UpstreamError}) or never answered properly ({@link TransportError}). The runtime's
 * failure classifier turns either into a verdict.
 */
public sealed interface UpstreamFailure permits UpstreamError, TransportError {

    /**
     * A one-line description safe to show a client (never contains credentials).
     *
     * @return the description
     */
    String describe();
}
