package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

/**
 * A resolved model string.
 *
 * @param provider the provider
 * @param upstreamModel the model id sent upstream
 * @param requested the model string the client sent
 */
public record Route(Provider provider, String upstreamModel, String requested) {

    /** Validates. */
    public Route {
        requireNonNull(provider, "provider is null");
        requireNonNull(upstreamModel, "upstreamModel is null");
        requireNonNull(requested, "requested is null");
    }
}
