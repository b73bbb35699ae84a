package dev.sluice.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * SPEC NF-3: selecting a connection among 1 000 connections and 10 000 lockout entries takes
 * microseconds. Each operation is what a request does before its first attempt:
 * {@code selector.open(route, caller).next()}, i.e. open a cursor over the provider's pre-sorted
 * connections and walk it to the first one no mechanism holds back. See {@link Fleet} for the
 * set-up and the exact walk of each scenario.
 *
 * <p>Not final: JMH generates subclasses of benchmark and state classes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SelectionBenchmark {

    /** Base of the per-scenario states: one {@link Fleet} per trial. */
    @State(Scope.Benchmark)
    public abstract static class FleetState {
        private final Fleet.Scenario scenario;
        Fleet fleet;

        FleetState(Fleet.Scenario scenario) {
            this.scenario = scenario;
        }

        /** Builds the fleet and checks that its walk is the one the scenario describes. */
        @Setup
        public void build() {
            fleet = new Fleet(scenario);
        }
    }

    /** The requested model locked on the 300 best-priority connections. */
    public static class Locked300 extends FleetState {
        /** Creates the state. */
        public Locked300() {
            super(Fleet.Scenario.LOCKED_300);
        }
    }

    /** Nothing holds the requested model back. */
    public static class NothingHeld extends FleetState {
        /** Creates the state. */
        public NothingHeld() {
            super(Fleet.Scenario.NOTHING_HELD);
        }
    }

    /** The 900 best-priority connections held back by lockouts, cooldowns and the open breaker. */
    public static class Held900 extends FleetState {
        /** Creates the state. */
        public Held900() {
            super(Fleet.Scenario.HELD_900);
        }
    }

    /**
     * The NF-3 case: the walk skips 300 connections (lockouts, cooldowns) and one on the open host.
     *
     * @param s the fleet
     * @param bh the sink
     */
    @Benchmark
    public void selectAmong1000With10000Lockouts(Locked300 s, Blackhole bh) {
        bh.consume(s.fleet.select());
    }

    /**
     * Best case: the first connection in walk order serves (its lookups still meet its ten other-model lockouts).
     *
     * @param s the fleet
     * @param bh the sink
     */
    @Benchmark
    public void selectBestCaseNothingHeld(NothingHeld s, Blackhole bh) {
        bh.consume(s.fleet.select());
    }

    /**
     * Worst realistic case: the walk skips 900 connections before one serves.
     *
     * @param s the fleet
     * @param bh the sink
     */
    @Benchmark
    public void selectWorstCase900HeldBack(Held900 s, Blackhole bh) {
        bh.consume(s.fleet.select());
    }
}
