package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import java.time.InstantSource;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The breakers' side of the {@link BreakerBoard} (NF-6): asks it, tells it, and remembers which
 * breakers' shared half-open probe this instance holds, so that only the holder ends that probe.
 * With {@link BreakerBoard#NONE} it shares nothing and holds nothing.
 *
 * <p>A request asks the board twice: at selection (without claiming) and when its attempt is
 * admitted (claiming a free probe). When the first answer, at most {@value #CLEAR_FRESH_MS} ms
 * earlier, was that no instance announced the breaker open, there is no shared probe to claim and
 * the second question is not asked — one round trip less per request. A breaker another instance
 * opens meanwhile refuses the next request's selection, which always asks.
 */
final class SharedBreakerProbes {

    /** How long "no instance announced it open" saves the admission's question. */
    static final long CLEAR_FRESH_MS = 20;

    private final BreakerBoard board;
    private final InstantSource clock;
    private final ConcurrentHashMap<BreakerKey, Boolean> held = new ConcurrentHashMap<>();
    /** When the board last answered that a breaker is announced nowhere (epoch ms). */
    private final ConcurrentHashMap<BreakerKey, Long> clearAt = new ConcurrentHashMap<>();

    SharedBreakerProbes(BreakerBoard board, InstantSource clock) {
        this.board = requireNonNull(board, "board is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** @return whether another instance can see this one's breakers */
    boolean shared() {
        return board.shared();
    }

    /**
     * What the board says of an attempt; a claimed shared probe is remembered as held here.
     *
     * @return {@link BreakerBoard#admit}'s answer: the shared open period left (ms, > 0), or
     *     {@link BreakerBoard#ADMITTED}, or {@link BreakerBoard#PROBE}
     */
    long admit(BreakerKey key, boolean claim, long probeLeaseMs) {
        long now = clock.millis();
        if (claim) {
            Long clear = clearAt.get(key);
            if (clear != null && now - clear >= 0 && now - clear <= CLEAR_FRESH_MS) {
                return BreakerBoard.ADMITTED;
            }
        }
        long answer = board.admit(key, claim, probeLeaseMs);
        if (answer == BreakerBoard.ADMITTED && !claim) {
            clearAt.put(key, now);
        } else {
            clearAt.remove(key);
        }
        if (answer == BreakerBoard.PROBE && claim) {
            held.put(key, Boolean.TRUE);
        }
        return answer;
    }

    /** The breaker opened here: open on every instance for {@code periodMs}. */
    void opened(BreakerKey key, long periodMs, long probeLeaseMs) {
        clearAt.remove(key);
        board.opened(key, periodMs, probeLeaseMs);
    }

    /** A success: when it was this instance's shared probe, the breaker is closed on every instance. */
    void probeSucceeded(BreakerKey key) {
        if (probeEnded(key)) {
            board.closed(key);
        }
    }

    /** An attempt without evidence: a shared probe this instance held is given back. */
    void probeReleased(BreakerKey key) {
        if (probeEnded(key)) {
            board.released(key);
        }
    }

    /**
     * An operator's reset here: the shared open state and probe of the breakers are deleted for
     * every instance, and this instance holds none of their probes any longer.
     *
     * @param provider the provider, or null for every breaker
     */
    void reset(String provider) {
        forget(provider);
        board.reset(provider);
    }

    /** The probes this instance held of reset breakers are forgotten (the shared keys are gone already). */
    void forget(String provider) {
        held.keySet().removeIf(k -> provider == null || k.provider().equals(provider));
    }

    /** @return whether this instance held the breaker's shared probe (forgotten now) */
    boolean probeEnded(BreakerKey key) {
        return board.shared() && held.remove(key) != null;
    }
}
