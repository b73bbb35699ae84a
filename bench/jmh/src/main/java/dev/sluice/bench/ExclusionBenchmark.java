package dev.sluice.bench;

import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.routing.ConnectionSelector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Diagnostic companion of {@link SelectionBenchmark}: the cost of one
 * {@link ResilienceEngine#exclusion} call, by the mechanism that answers it, so that a slow walk
 * can be split into its parts. The candidates are the real ones of the {@link Fleet.Scenario#HELD_900}
 * fleet, from one walk drained to its end (built once, outside the measurement) and visited
 * round-robin in walk order: 695 held by a model lockout, 128 on the open host, 100 cooling, 77
 * eligible (their lookups still meet each connection's ten other-model lockouts).
 *
 * <p>Not final: JMH generates subclasses of benchmark and state classes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class ExclusionBenchmark {

    /** The mechanism that answers: an {@link Exclusion.Reason} wire name, or {@code none} for an eligible connection. */
    @Param({"model_lockout", "circuit_open", "unavailable", "none"})
    public String heldBy;

    private ResilienceEngine engine;
    private Candidate[] candidates;
    private long now;
    private int next;

    /** Walks the whole fleet once and keeps the candidates the chosen mechanism answers for. */
    @Setup
    public void build() {
        Fleet fleet = new Fleet(Fleet.Scenario.HELD_900);
        engine = fleet.engine;
        now = fleet.clock.millis();
        ConnectionSelector.Cursor cursor = fleet.selector.open(fleet.route, fleet.caller);
        List<Candidate> eligible = new ArrayList<>();
        for (Candidate c = cursor.next(); c != null; c = cursor.next()) {
            eligible.add(c);
        }
        List<Candidate> chosen = new ArrayList<>();
        if (heldBy.equals("none")) {
            chosen.addAll(eligible);
        } else {
            for (ConnectionSelector.Excluded x : cursor.excluded()) {
                if (x.exclusion().reason().wireName().equals(heldBy)) {
                    chosen.add(x.candidate());
                }
            }
        }
        if (chosen.isEmpty()) {
            throw new IllegalStateException("no candidate held by " + heldBy);
        }
        candidates = chosen.toArray(Candidate[]::new);
        System.out.println("[exclusion] " + heldBy + ": " + candidates.length + " candidates, visited round-robin");
    }

    /**
     * One exclusion check.
     *
     * @param bh the sink
     */
    @Benchmark
    public void exclusion(Blackhole bh) {
        Candidate c = candidates[next];
        next = next + 1 == candidates.length ? 0 : next + 1;
        bh.consume(engine.exclusion(c, now));
    }
}
