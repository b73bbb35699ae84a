package dev.sluice.runtime.resilience;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.store.Connection;

/**
 * One connection considered for one model in one request: everything the mechanisms key on.
 *
 * @param provider the provider id
 * @param providerClass the provider's class (breaker and window-gate profiles are per provider)
 * @param connection the connection
 * @param breakerKey the breaker of the connection's upstream host (BO-4)
 * @param model the upstream model id
 * @param family the model's quota family, or null (ML-1)
 */
public record Candidate(String provider, ProviderClass providerClass, Connection connection, BreakerKey breakerKey, String model,
        String family) {
}
