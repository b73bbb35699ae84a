package dev.sluice.runtime.resilience.window;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ProviderCooldownSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.WindowProfile;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The provider cooldown window gate (SPEC §7): an optional, cross-request memory of providers and
 * connections that keep failing, so that consecutive combo requests stop re-trying them. Off by
 * default (PC-1): while {@code providerCooldown.enabled} is false nothing is recorded and every
 * query answers 0. In memory only (DM-4), driven by the injected clock, without a background
 * thread; settings are read on every call, so changes apply live.
 *
 * <p><b>Provider level (PC-2).</b> An entry keyed {@code provider} cools down only once
 * {@code failureThreshold} failures fall inside {@code failureWindowMs} (a failure counts while its
 * age is less than the window); it then cools for exactly {@code cooldownMs} from the failure that
 * crossed the threshold. Failures while it cools are remembered but do not extend the cooldown; the
 * first failure after the cooldown, with the window still full, crosses the threshold again (like a
 * failed half-open probe). One success clears the window and ends any cooldown. The profile
 * (threshold, window, cooldown) is the one of the class the caller passes; the window keeps only
 * the last {@code failureThreshold} failure times.
 *
 * <p><b>Connection level (PC-3).</b> An entry keyed {@code provider:connectionId} cools while the
 * time since its last failure is less than {@code min(minRetryCooldownMs × 2^min(failures − 1, 10),
 * maxRetryCooldownMs)}; a success sets failures to 0 (removes the entry). Connection ids are unique
 * (DM-1), so entries are indexed by connection id and carry their provider; a query for another
 * provider answers 0.
 *
 * <p><b>Memory.</b> An entry is forgotten once idle longer than 30 minutes (or the longest
 * configured window, cooldown or retry cooldown, if longer): a failure on such an entry starts
 * afresh, and a write sweeps such entries out at most once a minute. So the tracker holds at most the
 * providers and connections that failed within that retention.
 *
 * <p>Thread-safe: entries are immutable and replaced with {@link ConcurrentHashMap#compute}.
 */
final class LocalProviderCooldowns implements ProviderCooldowns {

    /** How long an idle entry is kept at least (as OmniRoute: 30 min). */
    static final long IDLE_RETENTION_MS = 30 * 60_000L;

    /** Writes sweep out idle entries at most this often. */
    static final long SWEEP_INTERVAL_MS = 60_000L;

    /** PC-3: the connection-level cooldown doubles at most this many times. */
    static final int MAX_RETRY_EXPONENT = 10;

    private static final long NONE = Long.MIN_VALUE;

    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final ConcurrentHashMap<String, ProviderWindow> providers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ConnectionEntry> connections = new ConcurrentHashMap<>();
    private final AtomicLong lastSweep = new AtomicLong();

    /**
     * Creates an empty gate that shares nothing.
     *
     * @param clock the clock
     * @param settings the current settings, read on every call
     */
    LocalProviderCooldowns(InstantSource clock, Supplier<ResilienceSettings> settings) {
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    @Override
    public long recordFailure(String provider, ProviderClass cls, String connectionId) {
        ProviderCooldownSettings s = settings.get().providerCooldown();
        if (!s.enabled()) {
            return 0;
        }
        requireNonNull(provider, "provider is null");
        requireNonNull(cls, "cls is null");
        long now = clock.millis();
        WindowProfile profile = s.forClass(cls);
        ProviderWindow w = providers.compute(provider, (k, prev) -> ProviderWindow.next(prev, cls, profile, now));
        if (connectionId != null) {
            long retention = connectionRetentionMs(s);
            connections.compute(connectionId, (k, e) -> {
                boolean fresh = e == null || !e.provider().equals(provider) || now - e.lastFailureAt() > retention;
                int failures = fresh ? 1 : (e.failures() == Integer.MAX_VALUE ? Integer.MAX_VALUE : e.failures() + 1);
                return new ConnectionEntry(provider, connectionId, failures, now);
            });
        }
        maybeSweep(now, s);
        return w.crossedAt == now ? w.remainingMs(profile, now) : 0;
    }

    @Override
    public boolean recordSuccess(String provider, String connectionId) {
        boolean ended = false;
        if (!providers.isEmpty()) {
            ProviderWindow w = providers.remove(provider);
            ended = w != null && w.crossedAt != NONE;
        }
        if (connectionId != null && !connections.isEmpty()) {
            ConnectionEntry e = connections.get(connectionId);
            if (e != null && e.provider().equals(provider)) {
                connections.remove(connectionId, e);
            }
        }
        return ended;
    }

    @Override
    public long providerRemainingMs(String provider, ProviderClass cls) {
        ProviderWindow w = providers.get(provider);
        if (w == null || w.crossedAt == NONE) {
            return 0;
        }
        ProviderCooldownSettings s = settings.get().providerCooldown();
        if (!s.enabled()) {
            return 0;
        }
        return w.remainingMs(s.forClass(cls == null ? w.cls : cls), clock.millis());
    }

    @Override
    public long connectionRemainingMs(String provider, String connectionId) {
        ConnectionEntry e = connections.get(connectionId);
        if (e == null || !e.provider().equals(provider)) {
            return 0;
        }
        ProviderCooldownSettings s = settings.get().providerCooldown();
        if (!s.enabled()) {
            return 0;
        }
        return e.remainingMs(s, clock.millis());
    }

    @Override
    public List<ProviderCooldownEntry> entries() {
        ProviderCooldownSettings s = settings.get().providerCooldown();
        if (!s.enabled()) {
            return List.of();
        }
        long now = clock.millis();
        long retention = connectionRetentionMs(s);
        List<ProviderCooldownEntry> out = new ArrayList<>();
        providers.forEach((provider, w) -> {
            WindowProfile p = s.forClass(w.cls);
            int inWindow = w.failuresInWindow(p, now);
            long remaining = w.remainingMs(p, now);
            if (inWindow > 0 || remaining > 0) {
                out.add(new ProviderCooldownEntry(provider, provider, null, inWindow, remaining));
            }
        });
        connections.forEach((id, e) -> {
            if (now - e.lastFailureAt() <= retention) {
                out.add(new ProviderCooldownEntry(e.provider() + ':' + id, e.provider(), id, e.failures(),
                        e.remainingMs(s, now)));
            }
        });
        out.sort(Comparator.comparing(ProviderCooldownEntry::key));
        return List.copyOf(out);
    }

    @Override
    public void clear() {
        forgetAll();
    }

    private void forgetAll() {
        providers.clear();
        connections.clear();
    }

    /**
     * Another instance's reset of every breaker forgets this instance's windows (it cleared the
     * shared ones); a success there ended the provider's window there, so it ends here; a cleared
     * connection forgets its entry.
     */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        switch (event) {
            case ClusterEvent.BreakersReset r when r.provider() == null -> forgetAll();
            case ClusterEvent.WindowEnded w -> providers.remove(w.provider());
            case ClusterEvent.ConnectionCleared c -> clearConnection(c.connectionId());
            default -> {
            }
        }
    }

    @Override
    public void clearConnection(String connectionId) {
        connections.remove(connectionId);
    }

    /** Entries held (both levels), idle ones included until swept; for tests of the memory bound. */
    int storedEntries() {
        return providers.size() + connections.size();
    }

    /** PC-3: {@code min(minRetryCooldownMs × 2^min(failures − 1, 10), maxRetryCooldownMs)}. */
    static long retryCooldownMs(ProviderCooldownSettings s, int failures) {
        int steps = Math.max(0, Math.min(failures - 1, MAX_RETRY_EXPONENT));
        long min = s.minRetryCooldownMs();
        long scaled = min > (Long.MAX_VALUE >> steps) ? Long.MAX_VALUE : min << steps;
        return Math.min(scaled, s.maxRetryCooldownMs());
    }

    private static long connectionRetentionMs(ProviderCooldownSettings s) {
        return Math.max(IDLE_RETENTION_MS, s.maxRetryCooldownMs());
    }

    private static long providerRetentionMs(ProviderCooldownSettings s) {
        long r = IDLE_RETENTION_MS;
        for (WindowProfile p : List.of(s.oauth(), s.apikey(), s.local())) {
            r = Math.max(r, Math.max(p.failureWindowMs(), p.cooldownMs()));
        }
        return r;
    }

    private void maybeSweep(long now, ProviderCooldownSettings s) {
        long last = lastSweep.get();
        if (now - last < SWEEP_INTERVAL_MS || !lastSweep.compareAndSet(last, now)) {
            return;
        }
        long providerRetention = providerRetentionMs(s);
        long connectionRetention = connectionRetentionMs(s);
        providers.values().removeIf(w -> now - w.lastFailureAt > providerRetention);
        connections.values().removeIf(e -> now - e.lastFailureAt() > connectionRetention);
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (b > 0 ? Long.MAX_VALUE : Long.MIN_VALUE) : r;
    }

    /** A connection-level entry (PC-3). */
    private record ConnectionEntry(String provider, String connectionId, int failures, long lastFailureAt) {
        long remainingMs(ProviderCooldownSettings s, long now) {
            return Math.max(0, saturatedAdd(lastFailureAt, retryCooldownMs(s, failures)) - now);
        }
    }

    /** A provider-level window (PC-2); immutable, replaced on every failure. */
    private static final class ProviderWindow {
        final ProviderClass cls;
        /** The most recent failure times inside the window, ascending, at most the threshold. */
        final long[] failures;
        /** The failure that crossed the threshold and started the current cooldown, or NONE. */
        final long crossedAt;
        final long lastFailureAt;

        private ProviderWindow(ProviderClass cls, long[] failures, long crossedAt, long lastFailureAt) {
            this.cls = cls;
            this.failures = failures;
            this.crossedAt = crossedAt;
            this.lastFailureAt = lastFailureAt;
        }

        static ProviderWindow next(ProviderWindow w, ProviderClass cls, WindowProfile p, long now) {
            int threshold = Math.max(1, p.failureThreshold());
            long[] prev = w == null ? new long[0] : w.failures;
            int inside = 0;
            while (inside < prev.length && now - prev[prev.length - 1 - inside] < p.failureWindowMs()) {
                inside++;
            }
            int keep = Math.min(inside, threshold - 1);
            long[] kept = new long[keep + 1];
            System.arraycopy(prev, prev.length - keep, kept, 0, keep);
            kept[keep] = now;
            boolean cooling = w != null && w.remainingMs(p, now) > 0;
            long crossedAt = cooling ? w.crossedAt : (kept.length >= threshold ? now : NONE);
            return new ProviderWindow(cls, kept, crossedAt, now);
        }

        long remainingMs(WindowProfile p, long now) {
            return crossedAt == NONE ? 0 : Math.max(0, saturatedAdd(crossedAt, p.cooldownMs()) - now);
        }

        int failuresInWindow(WindowProfile p, long now) {
            int n = 0;
            for (long t : failures) {
                if (now - t < p.failureWindowMs()) {
                    n++;
                }
            }
            return n;
        }
    }
}
