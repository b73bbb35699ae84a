package dev.sluice.runtime.discovery;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The last discovery of one connection: the ids its upstream listed (kept from the last success
 * when a later discovery failed), when it was tried, and why it failed.
 *
 * @param ids model ids as the upstream names them (without the provider prefix)
 * @param at epoch ms of the last discovery, successful or not
 * @param error why the last discovery failed, or null when it succeeded
 */
public record DiscoveredModels(List<String> ids, long at, String error) {

    /** Copies the ids. */
    public DiscoveredModels {
        ids = List.copyOf(requireNonNull(ids, "ids is null"));
    }

    /**
     * A failed discovery that keeps what an earlier one found.
     *
     * @param last the earlier discovery, or null
     * @param at when this one was tried
     * @param error why it failed
     * @return the failure
     */
    static DiscoveredModels failed(DiscoveredModels last, long at, String error) {
        return new DiscoveredModels(last == null ? List.of() : last.ids(), at, requireNonNull(error, "error is null"));
    }
}
