package dev.sluice.runtime.combo.routing;

import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.resilience.QuotaObservations;
import java.util.concurrent.atomic.AtomicLong;

/** Per-combo observations the strategies read: in flight, uses, last use, last success (CO-2). */
final class ComboStats {

    final long version;
    private final AtomicLong[] inFlight;
    private final AtomicLong[] uses;
    private final AtomicLong[] lastUsedAt;
    private final AtomicLong[] lastSuccessAt;

    ComboStats(long version, int n) {
        this.version = version;
        inFlight = counters(n);
        uses = counters(n);
        lastUsedAt = counters(n);
        lastSuccessAt = counters(n);
    }

    private static AtomicLong[] counters(int n) {
        AtomicLong[] a = new AtomicLong[n];
        for (int i = 0; i < n; i++) {
            a[i] = new AtomicLong();
        }
        return a;
    }

    int size() {
        return uses.length;
    }

    ComboTargetView view(int i, ComboTarget t, QuotaObservations.Quota quota) {
        long used = lastUsedAt[i].get();
        long ok = lastSuccessAt[i].get();
        return new ComboTargetView(i, t.model(), t.connectionId(), t.weight() == null ? 1 : t.weight(),
                t.priority() == null ? i + 1 : t.priority(), t.costPer1kTokens(), inFlight[i].get(), uses[i].get(),
                used == 0 ? null : used, ok == 0 ? null : ok, quota == null ? null : quota.remaining(),
                quota == null ? null : quota.resetAt(), quota == null ? null : quota.windowResetAt());
    }

    void started(int i, long now) {
        inFlight[i].incrementAndGet();
        uses[i].incrementAndGet();
        lastUsedAt[i].set(now);
    }

    void ended(int i) {
        inFlight[i].decrementAndGet();
    }

    void succeeded(int i, long now) {
        lastSuccessAt[i].set(now);
    }
}
