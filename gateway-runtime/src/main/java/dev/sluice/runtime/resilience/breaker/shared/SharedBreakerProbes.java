package dev.sluice.runtime.resilience.breaker.shared;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.BreakerKey;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shared breakers' side of the {@link BreakerBoard} (NF-6): asks it, tells it, and remembers
 * which breakers' shared half-open probe this instance holds, so that only the holder ends that
 * probe. With {@link BreakerBoard#NONE} it shares nothing and holds nothing.
 *
 * <p>A request asks the board twice: at selection (without claiming) and when its attempt is
 * admitted (claiming a free probe). Both are cheap: the Redis board answers from its mirror of
 * the announced breakers and reaches Redis only for a half-open breaker's probe (issue 26).
 */
final class SharedBreakerProbes {

    private final BreakerBoard board;
    private final ConcurrentHashMap<BreakerKey, Boolean> held = new ConcurrentHashMap<>();

    SharedBreakerProbes(BreakerBoard board) {
        this.board = requireNonNull(board, "board is null");
    }

    /**
     * What the board says of an attempt; a claimed shared probe is remembered as held here.
     *
     * @return {@link BreakerBoard#admit}'s answer: the shared open period left (ms, > 0), or
     *     {@link BreakerBoard#ADMITTED}, or {@link BreakerBoard#PROBE}
     */
    long admit(BreakerKey key, boolean claim, long probeLeaseMs) {
        long answer = board.admit(key, claim, probeLeaseMs);
        if (answer == BreakerBoard.PROBE && claim) {
            held.put(key, Boolean.TRUE);
        }
        return answer;
    }

    /** The breaker opened here: open on every instance for {@code periodMs}. */
    void opened(BreakerKey key, long periodMs, long probeLeaseMs) {
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
        return held.remove(key) != null;
    }
}
