package dev.sluice.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.gate.TurnSteps;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import java.time.InstantSource;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * The per-attempt cost of local admission (SPEC §12, §14; issue 7): the admission policy's limits
 * for the connection and model, then entering the connection's gate and releasing the permit —
 * what the dispatcher adds to every attempt — with 64 threads at once, all on one connection (the
 * worst case for the gate's lock) or spread over 64 connections.
 *
 * <ul>
 * <li>{@code none}: an API-key connection with nothing configured (protected by auto-enable, but
 *     nothing paces or caps it: RQ-10) — the lock-free fast path;</li>
 * <li>{@code capped}: {@code maxConcurrent} high enough never to make anyone wait, plus a model cap:
 *     every attempt takes and returns both permits under the gate's lock;</li>
 * </ul>
 *
 * <p>Both modes are reported: {@code avgt} is the time one request spends in admission as its
 * thread sees it (with 64 threads on a few cores, mostly waiting for a core or for the lock);
 * {@code thrpt} is what all threads together get through, so one admission costs about
 * {@code cores / thrpt} µs of CPU.
 *
 * <p>Not final: JMH generates subclasses of benchmark and state classes.
 */
@BenchmarkMode({Mode.AverageTime, Mode.Throughput})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
@Threads(64)
public class GateBenchmark {

    /** What the connections configure. */
    @Param({"none", "capped"})
    public String limits;

    /** Connections the 64 threads spread over. */
    @Param({"1", "64"})
    public int connections;

    private AdmissionPolicy policy;
    private ConnectionGates gates;
    private Connection[] fleet;

    /** Builds the connections, the policy and the gates. */
    @Setup(Level.Trial)
    public void build() {
        ObjectMapper mapper = new ObjectMapper();
        policy = new AdmissionPolicy(() -> ResilienceSettings.DEFAULTS, null, json -> {
            try {
                return mapper.readValue(json, new TypeReference<Map<String, Object>>() { });
            } catch (Exception e) {
                throw new IllegalArgumentException(e);
            }
        }, Set.of());
        gates = new ConnectionGates(InstantSource.system(), n -> { }, TurnSteps.NONE);
        boolean capped = limits.equals("capped");
        fleet = new Connection[connections];
        for (int i = 0; i < connections; i++) {
            fleet[i] = new Connection("conn-" + i, i + 1L, "glm", "key " + i, ProviderClass.APIKEY, "sk-bench-" + i, null, null, 1, true,
                    capped ? 1_000_000 : null, capped ? "{\"modelConcurrency\":{\"glm-5\":1000000}}" : null, false, false, null, null,
                    null, ConnectionState.ACTIVE, 0, 0);
        }
    }

    /** Each thread keeps to one connection. */
    @State(Scope.Thread)
    public static class Slot {
        int index = -1;
    }

    private static final java.util.concurrent.atomic.AtomicInteger THREADS = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * One attempt's admission: limits, enter, release.
     *
     * @param slot the thread's connection
     * @return whether it was admitted (always)
     * @throws InterruptedException never here (nobody waits)
     */
    @Benchmark
    public boolean admitAndRelease(Slot slot) throws InterruptedException {
        if (slot.index < 0) {
            slot.index = THREADS.getAndIncrement() % fleet.length;
        }
        Connection c = fleet[slot.index];
        ConnectionGates.Entry e = gates.enter(c.id(), "glm-5", policy.limits(c, "glm-5"), null);
        if (e instanceof ConnectionGates.Permit p) {
            p.release();
            return true;
        }
        return false;
    }
}
