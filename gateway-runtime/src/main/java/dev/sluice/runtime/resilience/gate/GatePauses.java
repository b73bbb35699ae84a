package dev.sluice.runtime.resilience.gate;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The pauses of one connection (RQ-4): the connection's own, and per-model ones where the
 * upstream's limits are per model. Changed and asked per model only under the owning
 * {@link Gate}'s lock; the two volatile bounds are read without it, by the lock-free fast path.
 */
final class GatePauses {

    private volatile long pausedUntil;
    /** Per-model pauses; {@link #anyModelPausedUntil} is the latest of them. */
    private final Map<String, Long> modelPausedUntil = new HashMap<>();
    private volatile long anyModelPausedUntil;

    /** Whether no pause, of the connection or of any model, lasts past {@code now} (lock-free). */
    boolean over(long now) {
        return pausedUntil <= now && anyModelPausedUntil <= now;
    }

    /** Whether some model's pause may last past {@code now} (lock-free). */
    boolean anyModelPausedAfter(long now) {
        return anyModelPausedUntil > now;
    }

    /** When the connection's own pause ends, epoch ms (lock-free; may be past). */
    long connectionPausedUntil() {
        return pausedUntil;
    }

    /** The pause that holds {@code model}: the connection's or the model's, whichever ends later. */
    long heldUntil(String model) {
        return anyModelPausedUntil == 0 ? pausedUntil : Math.max(pausedUntil, modelPausedUntil.getOrDefault(model, 0L));
    }

    /** Pauses the whole connection until {@code untilMs}; an earlier end never shortens a pause. */
    void pauseConnection(long untilMs) {
        pausedUntil = Math.max(pausedUntil, untilMs);
    }

    /** Pauses one model until {@code untilMs}, dropping per-model pauses already over. */
    void pauseModel(String model, long untilMs, long now) {
        modelPausedUntil.values().removeIf(until -> until <= now);
        modelPausedUntil.merge(model, untilMs, Math::max);
        anyModelPausedUntil = Math.max(anyModelPausedUntil, untilMs);
    }

    /** The per-model pauses in force at {@code now}, by model name. */
    Map<String, Long> models(long now) {
        Map<String, Long> out = new TreeMap<>();
        modelPausedUntil.forEach((m, until) -> {
            if (until > now) {
                out.put(m, until);
            }
        });
        return out;
    }
}
