package dev.sluice.runtime.resilience.window;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Supplier;

/**
 * The provider cooldown window gate (SPEC §7) as the engine and the admin API see it: one
 * instance's memory ({@link #local}), or that memory with its provider cooldowns shared by every
 * instance (NF-6: {@code window.shared.SharedProviderCooldowns}, a decorator beside its board).
 * The mechanism's part ({@link Mechanism}) is written once here, in terms of the operations, so a
 * decorator only changes the operations it shares.
 */
public interface ProviderCooldowns extends Mechanism {

    /**
     * One instance's window gate, sharing nothing.
     *
     * @param clock the clock
     * @param settings the current settings, read on every call
     * @return the gate
     */
    static ProviderCooldowns local(InstantSource clock, Supplier<ResilienceSettings> settings) {
        return new LocalProviderCooldowns(clock, settings);
    }

    /**
     * Records a failure of a provider and, when given, of one of its connections. A no-op while
     * the gate is disabled.
     *
     * @param provider the provider id
     * @param cls the class whose window profile applies
     * @param connectionId the connection that failed, or null for a provider-level failure only
     * @return the provider cooldown this failure started, ms (it crossed the threshold); 0 when it started none
     */
    long recordFailure(String provider, ProviderClass cls, String connectionId);

    /**
     * A success: clears the provider's window, ending any provider-level cooldown (PC-2), and
     * resets the connection's failures to 0 (PC-3).
     *
     * @param provider the provider id
     * @param connectionId the connection that answered, or null
     * @return true when it ended a provider cooldown
     */
    boolean recordSuccess(String provider, String connectionId);

    /**
     * How long the provider still cools down (PC-2).
     *
     * @param provider the provider id
     * @param cls the class whose cooldown applies, or null for the class of the last failure
     * @return the remaining ms; 0 when disabled or not cooling
     */
    long providerRemainingMs(String provider, ProviderClass cls);

    /**
     * How long the connection still cools down (PC-3).
     *
     * @param provider the provider id
     * @param connectionId the connection id
     * @return the remaining ms; 0 when disabled or not cooling
     */
    long connectionRemainingMs(String provider, String connectionId);

    /**
     * The tracked entries for the admin API: providers with failures inside their window or
     * cooling, and connections that failed within the retention, sorted by key.
     *
     * @return the entries; empty when disabled
     */
    List<ProviderCooldownEntry> entries();

    /** Forgets every entry (and, shared, every provider cooldown announced to the other instances). */
    void clear();

    /**
     * Forgets one connection's entry.
     *
     * @param connectionId the connection id
     */
    void clearConnection(String connectionId);

    @Override
    default long providerHeldMs(String provider, ProviderClass providerClass) {
        return providerRemainingMs(provider, providerClass);
    }

    @Override
    default boolean holds(HoldCheck check) {
        long ms = connectionRemainingMs(check.provider(), check.connection().id());
        return ms > 0 && check.hold(Exclusion.Reason.PROVIDER_COOLDOWN, ms);
    }

    /**
     * The window gate remembers providers that fail at the service level, like the breaker; a walk
     * over rate-limited keys is the keys' business (connection cooldown).
     */
    @Override
    default void onFailure(FailedCandidate failed) {
        if (failed.concernsTheConnection() && failed.verdict().countsForBreaker()) {
            Candidate c = failed.candidate();
            recordFailure(c.provider(), c.providerClass(), c.connection().id());
        }
    }

    @Override
    default void onSuccess(Candidate served) {
        recordSuccess(served.provider(), served.connection().id());
    }
}
