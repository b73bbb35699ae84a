package dev.sluice.runtime.resilience.window;

import static java.util.Objects.requireNonNull;


/**
 * One entry of the provider cooldown tracker (SPEC §7) as the admin API shows it.
 *
 * @param key {@code provider} for a provider-level entry (PC-2), {@code provider:connectionId} for a
 *     connection-level one (PC-3)
 * @param provider the provider id
 * @param connectionId the connection id, or null for a provider-level entry
 * @param failures provider level: failures inside the window (at most the threshold, since older
 *     ones cannot matter); connection level: consecutive failures since the last success
 * @param remainingMs how long the entry still cools down, 0 when it does not
 */
public record ProviderCooldownEntry(String key, String provider, String connectionId, int failures, long remainingMs) {

    /** Validates. */
    public ProviderCooldownEntry {
        requireNonNull(key, "key is null");
        requireNonNull(provider, "provider is null");
        if (failures < 0 || remainingMs < 0) {
            throw new IllegalArgumentException("failures and remainingMs must not be negative");
        }
    }
}
