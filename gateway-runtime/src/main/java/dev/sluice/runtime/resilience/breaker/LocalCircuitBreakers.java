package dev.sluice.runtime.resilience.breaker;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Closed;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Degraded;
import java.time.InstantSource;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * One instance's provider circuit breakers (SPEC §6), one per {@link BreakerKey} (provider and
 * upstream host, BO-4), persisted through a {@link BreakerStore} (CB-7); it knows nothing of other
 * instances (shared mode, NF-6, is a decorator in {@code breaker.shared}). The breakers' one entry
 * point, split by job: states {@link BreakerStatus}, legal moves {@link BreakerTransition}, one
 * breaker {@link BreakerCell}, which exist {@link BreakerRegistry}, dedupe {@link FailureDedupe},
 * rows {@link BreakerPersistence}, periods {@link BreakerPeriods}.
 *
 * <p>There is no timer (CB-6): every call first applies the transitions that time alone makes
 * ({@code OPEN → HALF_OPEN} once the open period passed, a stale {@code DEGRADED → CLOSED}, the
 * release of a half-open probe that never reported, after {@link BreakerPeriods#probeLeaseMs}). Thresholds and
 * periods are read from the live settings on every call, for the class the caller names.
 *
 * <p>Each breaker has its own lock ({@link BreakerCell}). The common case (a {@code CLOSED}
 * breaker asked whether traffic may flow, or told of a success with nothing to forget) takes no
 * lock and writes nothing. Unknown keys are {@code CLOSED}; a breaker is created by its first
 * counted failure.
 */
final class LocalCircuitBreakers implements CircuitBreakers {

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final FailureDedupe dedupe = new FailureDedupe();
    private final BreakerRegistry registry;

    /**
     * Creates the breakers and restores every persisted one (CB-7); a restored {@code HALF_OPEN}
     * breaker has no probe in flight.
     *
     * @param clock the clock
     * @param settings the live resilience settings, read on every call
     * @param store the persistence ({@link BreakerStore#rows} over the breaker table, {@link BreakerStore#none()})
     */
    LocalCircuitBreakers(InstantSource clock, Supplier<ResilienceSettings> settings, BreakerStore store) {
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
        this.registry = new BreakerRegistry(clock, new BreakerPersistence(store), dedupe);
    }

    @Override
    public Admission admit(BreakerKey key, ProviderClass cls) {
        return decide(key, cls, true);
    }

    @Override
    public boolean canExecute(BreakerKey key, ProviderClass cls) {
        return decide(key, cls, false).admitted();
    }

    /** With {@code claim} false a free half-open probe is answered {@link Admission#ADMITTED}, unclaimed. */
    private Admission decide(BreakerKey key, ProviderClass cls, boolean claim) {
        requireNonNull(cls, "cls is null");
        BreakerCell cell = registry.peek(key);
        if (cell == null) {
            return Admission.ADMITTED;
        }
        if (cell.cls != cls) {
            cell.cls = cls;
        }
        if (cell.status() instanceof Closed) {
            return Admission.ADMITTED;
        }
        Admission answer = registry.locked(key, null, c -> c.admit(profile(cls), claim, clock.millis()));
        return answer == null ? Admission.ADMITTED : answer;
    }

    @Override
    public void onSuccess(BreakerKey key, ProviderClass cls, String connectionId) {
        requireNonNull(cls, "cls is null");
        BreakerCell cell = registry.peek(key);
        if (cell == null) {
            // No cell, no dedupe entry in its window: entries are made with the cell, and forgotten with it.
            return;
        }
        if (connectionId != null && cell.dedupeUntil > clock.millis()) {
            // A failure after a success is new evidence, not a repeat of the earlier one.
            dedupe.forget(key, connectionId);
        }
        if (cell.cls != cls) {
            cell.cls = cls;
        }
        if (cell.idle()) {
            return;
        }
        registry.locked(key, null, c -> {
            long now = clock.millis();
            BreakerProfile p = profile(cls);
            c.elapse(p, now);
            c.move(c.status().onSuccess(p), cls, now);
            return null;
        });
    }

    @Override
    public boolean onFailure(BreakerKey key, ProviderClass cls, String connectionId, String kind) {
        requireNonNull(cls, "cls is null");
        Boolean opened = registry.locked(key, cls, c -> {
            c.cls = cls;
            long now = clock.millis();
            BreakerProfile p = profile(cls);
            c.elapse(p, now);
            BreakerStatus s = c.status();
            BreakerStatus.Move m = s.onFailure(p, now, kind);
            if (m == null || s.dedupesFailures() && dedupe.isRepeat(key, connectionId, now)) {
                return Boolean.FALSE;
            }
            if (connectionId != null) {
                c.dedupeUntil = dedupe.remember(key, connectionId, now);
            }
            c.move(m, cls, now);
            // decided under the breaker's lock: exactly one failure opens it
            return !(s instanceof BreakerStatus.Open) && c.status() instanceof BreakerStatus.Open;
        });
        return opened == Boolean.TRUE;
    }

    @Override
    public void onNeutral(BreakerKey key, Admission admission) {
        requireNonNull(admission, "admission is null");
        if (!admission.probe() || registry.peek(key) == null) {
            return;
        }
        registry.locked(key, null, c -> {
            c.releaseIfHeldBy(admission, "probe ended without evidence");
            return null;
        });
    }

    @Override
    public void recordConnectionTestSuccess(BreakerKey key) {
        BreakerCell cell = registry.peek(key);
        if (cell == null || !(cell.status() instanceof Degraded)) {
            return;
        }
        registry.locked(key, null, c -> {
            c.move(c.status().onConnectionTestSuccess(), c.cls, clock.millis());
            return null;
        });
    }

    @Override
    public BreakerView view(BreakerKey key, ProviderClass cls) {
        requireNonNull(cls, "cls is null");
        BreakerView v = registry.locked(key, null, c -> {
            c.cls = cls;
            return c.view(profile(cls), clock.millis());
        });
        return v != null ? v : new BreakerView(key, BreakerState.CLOSED, 0, null, 0, 0, null);
    }

    @Override
    public List<BreakerView> views() {
        List<BreakerView> out = registry.eachLocked(c -> c.view(profile(c.cls), clock.millis()));
        out.sort(Comparator.comparing(v -> v.key().toString()));
        return out;
    }

    @Override
    public long retryAfterMs(BreakerKey key, ProviderClass cls) {
        return view(key, cls).retryAfterMs();
    }

    @Override
    public int reset() {
        return registry.reset();
    }

    @Override
    public int reset(String provider) {
        requireNonNull(provider, "provider is null");
        return registry.reset(provider);
    }

    /** A reset another instance made (NF-6): this instance's breakers, as that instance reset its own. */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        if (event instanceof ClusterEvent.BreakersReset r) {
            if (r.provider() == null) {
                registry.reset();
            } else {
                registry.reset(r.provider());
            }
        }
    }

    /** @return breakers held in memory (for tests of the registry cap) */
    int size() {
        return registry.size();
    }

    /** @return entries of the dedupe memory (for tests of its bound) */
    int dedupeEntries() {
        return dedupe.size();
    }

    private BreakerProfile profile(ProviderClass cls) {
        return settings.get().circuitBreaker().forClass(cls == null ? DEFAULT_CLASS : cls);
    }
}
