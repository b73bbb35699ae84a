package dev.sluice.runtime.resilience.engine;

import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;

/**
 * The mechanisms' state holders, for the admin views (each mechanism is shown on its own, so an
 * operator can tell which one held a request back).
 *
 * @param breakers provider circuit breakers (§6)
 * @param cooldowns connection cooldowns (§8)
 * @param lockouts model lockouts (§11)
 * @param providerCooldowns the provider cooldown window gate (§7)
 */
public record Resilience(CircuitBreakers breakers, ConnectionCooldowns cooldowns, ModelLockouts lockouts,
        ProviderCooldowns providerCooldowns) {
}
