package dev.sluice.runtime.resilience.breaker.shared;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.breaker.BreakerPeriods;
import dev.sluice.runtime.resilience.breaker.BreakerView;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import java.util.List;
import java.util.function.Supplier;

/**
 * Shared mode of the circuit breakers (NF-6), a decorator over one instance's breakers. Failures
 * are still counted by each instance's own breaker; the instance whose breaker opens announces it
 * on the {@link BreakerBoard}, and every instance then refuses the host until the open period
 * ends, after which exactly one attempt over all instances probes it:
 * <ul>
 *   <li>an attempt the local breaker admits is asked of the board too (claiming the shared probe
 *       when it is free); refused there, a local probe it claimed is given back;</li>
 *   <li>a failure that opened the local breaker, or that ended the shared probe this instance
 *       held, opens the breaker on the board (a failed shared probe for one more cycle, BO-3);</li>
 *   <li>a success of the shared probe held here closes it on the board; an attempt that ends
 *       without evidence gives that probe back;</li>
 *   <li>the wait before a probe is the longer of the local and the shared one; an operator's
 *       reset deletes the shared state of the breakers it resets.</li>
 * </ul>
 * Views and rows stay each instance's own. Absent in single mode, so the hot path there is the
 * local breakers' alone.
 */
public final class SharedCircuitBreakers implements CircuitBreakers {

    private final CircuitBreakers local;
    private final SharedBreakerProbes probes;
    private final Supplier<ResilienceSettings> settings;

    private SharedCircuitBreakers(CircuitBreakers local, BreakerBoard board, Supplier<ResilienceSettings> settings) {
        this.local = requireNonNull(local, "local is null");
        this.probes = new SharedBreakerProbes(board);
        this.settings = requireNonNull(settings, "settings is null");
    }

    /**
     * Shares local breakers.
     *
     * @param local this instance's breakers
     * @param board what the instances share of their open state and half-open probe
     * @param settings the live resilience settings (the open period and probe lease announced)
     * @return the shared breakers
     */
    public static CircuitBreakers over(CircuitBreakers local, BreakerBoard board, Supplier<ResilienceSettings> settings) {
        return new SharedCircuitBreakers(local, board, settings);
    }

    @Override
    public Admission admit(BreakerKey key, ProviderClass cls) {
        Admission own = local.admit(key, cls);
        if (!own.admitted()) {
            return own;
        }
        // an instance whose breaker opened refuses the host for everyone; one probe over all instances
        if (probes.admit(key, true, leaseMs(cls)) > 0) {
            if (own.probe()) {
                // another instance holds the shared probe: this attempt does not probe after all
                local.onNeutral(key, own);
            }
            return Admission.REFUSED;
        }
        return own;
    }

    @Override
    public boolean canExecute(BreakerKey key, ProviderClass cls) {
        return local.canExecute(key, cls) && probes.admit(key, false, leaseMs(cls)) <= 0;
    }

    @Override
    public void onSuccess(BreakerKey key, ProviderClass cls, String connectionId) {
        requireNonNull(cls, "cls is null");
        probes.probeSucceeded(key);
        local.onSuccess(key, cls, connectionId);
    }

    @Override
    public boolean onFailure(BreakerKey key, ProviderClass cls, String connectionId, String kind) {
        boolean opened = local.onFailure(key, cls, connectionId, kind);
        boolean sharedProbeFailed = probes.probeEnded(key);
        if (opened || sharedProbeFailed) {
            // open on every instance; a failed shared probe opens it again for one more cycle (BO-3)
            BreakerProfile p = profile(cls);
            long period = opened ? Math.max(1, retryAfterMs(key, cls)) : BreakerPeriods.openPeriodMs(p, 1, kind);
            probes.opened(key, period, BreakerPeriods.probeLeaseMs(p));
        }
        return opened;
    }

    @Override
    public void onNeutral(BreakerKey key, Admission admission) {
        requireNonNull(admission, "admission is null");
        if (admission.admitted()) {
            probes.probeReleased(key);
        }
        local.onNeutral(key, admission);
    }

    @Override
    public void recordConnectionTestSuccess(BreakerKey key) {
        local.recordConnectionTestSuccess(key);
    }

    @Override
    public BreakerView view(BreakerKey key, ProviderClass cls) {
        return local.view(key, cls);
    }

    @Override
    public List<BreakerView> views() {
        return local.views();
    }

    /** The longer of the local wait and the shared open period another instance announced. */
    @Override
    public long retryAfterMs(BreakerKey key, ProviderClass cls) {
        long own = local.retryAfterMs(key, cls);
        return Math.max(own, Math.max(0, probes.admit(key, false, leaseMs(cls))));
    }

    @Override
    public int reset() {
        probes.reset(null);
        return local.reset();
    }

    @Override
    public int reset(String provider) {
        requireNonNull(provider, "provider is null");
        probes.reset(provider);
        return local.reset(provider);
    }

    /** A reset another instance made: the probes held here of those breakers are forgotten (their shared state is gone already). */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        if (event instanceof ClusterEvent.BreakersReset r) {
            probes.forget(r.provider());
        }
        local.onClusterEvent(event, now);
    }

    private long leaseMs(ProviderClass cls) {
        return BreakerPeriods.probeLeaseMs(profile(cls));
    }

    private BreakerProfile profile(ProviderClass cls) {
        return settings.get().circuitBreaker().forClass(cls == null ? DEFAULT_CLASS : cls);
    }
}
