package dev.sluice.runtime.combo.routing;

import dev.sluice.api.ModelFacts;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Per-combo observations the strategies read (CO-2, issue 34): in flight, uses, last use, last
 * success, and per target the decayed share of failed attempts and the median latency of its
 * recent answers.
 *
 * <p>Failure rate: an exponentially weighted average over the target's attempts that ended in an
 * upstream answer ({@value #FAILURE_WEIGHT} for the newest: a failure moves a healthy target's rate
 * to 0.2, five successes bring it back under 0.07). Latency: the median of the last
 * {@value #LATENCY_SAMPLES} successful answers' times to the answer's head, shown while the newest
 * of them is at most {@value #LATENCY_HORIZON_MS} ms old (older figures say little about now).
 */
final class ComboStats {

    /** Weight of the newest attempt in the failure rate. */
    static final double FAILURE_WEIGHT = 0.2;
    /** Answers the latency median is taken over. */
    static final int LATENCY_SAMPLES = 16;
    /** How long the latency median stays valid after the newest answer, ms. */
    static final long LATENCY_HORIZON_MS = 600_000;

    final long version;
    private final AtomicLong[] inFlight;
    private final AtomicLong[] uses;
    private final AtomicLong[] lastUsedAt;
    private final AtomicLong[] lastSuccessAt;
    /** Double bits of the failure rate; -1 bits (NaN) = no attempt yet. */
    private final AtomicLong[] failureRate;
    private final Latencies[] latency;

    ComboStats(long version, int n) {
        this.version = version;
        inFlight = counters(n, 0);
        uses = counters(n, 0);
        lastUsedAt = counters(n, 0);
        lastSuccessAt = counters(n, 0);
        failureRate = counters(n, Double.doubleToRawLongBits(Double.NaN));
        latency = new Latencies[n];
        for (int i = 0; i < n; i++) {
            latency[i] = new Latencies();
        }
    }

    private static AtomicLong[] counters(int n, long initial) {
        AtomicLong[] a = new AtomicLong[n];
        for (int i = 0; i < n; i++) {
            a[i] = new AtomicLong(initial);
        }
        return a;
    }

    int size() {
        return uses.length;
    }

    ComboTargetView view(int i, ComboTarget t, QuotaObservations.Quota quota) {
        return view(i, t, quota, ModelFacts.UNKNOWN, 0, 0);
    }

    /**
     * The strategies' view of a target.
     *
     * @param i its index
     * @param t its configuration
     * @param quota the quota its connection announced, or null
     * @param facts the model catalog's figures
     * @param held its connections held back now
     * @param now the time, epoch ms
     * @return the view
     */
    ComboTargetView view(int i, ComboTarget t, QuotaObservations.Quota quota, ModelFacts facts, int held, long now) {
        long used = lastUsedAt[i].get();
        long ok = lastSuccessAt[i].get();
        double failures = Double.longBitsToDouble(failureRate[i].get());
        Double cost = t.costPer1kTokens() != null ? t.costPer1kTokens() : catalogCost(facts);
        return new ComboTargetView(i, t.model(), t.connectionId(), t.weight() == null ? 1 : t.weight(),
                t.priority() == null ? i + 1 : t.priority(), cost, inFlight[i].get(), uses[i].get(),
                used == 0 ? null : used, ok == 0 ? null : ok, quota == null ? null : quota.remaining(),
                quota == null ? null : quota.resetAt(), quota == null ? null : quota.windowResetAt(), facts,
                latency[i].p50(now), Double.isNaN(failures) ? null : Math.min(1, Math.max(0, failures)), held);
    }

    /**
     * A target's cost per thousand tokens from the catalog when its combo sets none (issue 34):
     * the mean of the input and output prices per million, divided by 1000.
     */
    static Double catalogCost(ModelFacts f) {
        if (f.inputPerMillion() == null || f.outputPerMillion() == null) {
            return null;
        }
        return (f.inputPerMillion() + f.outputPerMillion()) / 2 / 1000;
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
        succeeded(i, now, -1);
    }

    /**
     * A successful answer.
     *
     * @param i the target
     * @param now the time, epoch ms
     * @param latencyMs time to the answer's head, or negative when unknown
     */
    void succeeded(int i, long now, long latencyMs) {
        lastSuccessAt[i].set(now);
        answered(i, false);
        if (latencyMs >= 0) {
            latency[i].add(now, latencyMs);
        }
    }

    /** An upstream failure of the target. */
    void failed(int i) {
        answered(i, true);
    }

    private void answered(int i, boolean failure) {
        failureRate[i].updateAndGet(bits -> {
            double old = Double.longBitsToDouble(bits);
            double x = failure ? 1 : 0;
            return Double.doubleToRawLongBits(Double.isNaN(old) ? x : old + FAILURE_WEIGHT * (x - old));
        });
    }

    /** The last answers' latencies; the median is computed when one is added (rare next to reads). */
    private static final class Latencies {
        private final long[] samples = new long[LATENCY_SAMPLES];
        private int count;
        private int next;
        private volatile long median = -1;
        private volatile long newestAt;

        synchronized void add(long now, long ms) {
            samples[next] = ms;
            next = (next + 1) % samples.length;
            count = Math.min(count + 1, samples.length);
            long[] sorted = Arrays.copyOf(samples, count);
            Arrays.sort(sorted);
            median = count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2;
            newestAt = now;
        }

        Long p50(long now) {
            long m = median;
            return m < 0 || now - newestAt > LATENCY_HORIZON_MS ? null : m;
        }
    }
}
