package dev.sluice.runtime.resilience.gate;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.classify.RetryHints;
import java.util.Optional;

/**
 * RQ-10: request limits an upstream announces in its answers' headers
 * ({@code x-ratelimit-limit-requests} / {@code -remaining-requests} / {@code -reset-requests},
 * {@code anthropic-ratelimit-requests-limit} / {@code -remaining} / {@code -reset}). When fewer than
 * {@link #LOW_SHARE} of the limit remain, the connection is paced evenly until the announced reset:
 * the remaining requests spread over the time left, so the window is not exhausted early.
 */
public final class LearnedRateLimits {

    /** Below this share of the limit left, pacing starts. */
    public static final double LOW_SHARE = 0.10;

    private LearnedRateLimits() {
    }

    /** What an answer announced about its request window. */
    sealed interface Reading permits Healthy, Low, Silent {
    }

    /** Enough left: no pacing. */
    record Healthy() implements Reading {
    }

    /** Little left: pace. */
    record Low(ConnectionGates.Pacing pacing) implements Reading {
    }

    /** Nothing (usable) announced. */
    record Silent() implements Reading {
    }

    /**
     * Reads an answer's headers.
     *
     * @param head the answer's head
     * @param nowMillis now
     * @return what it announced
     */
    static Reading read(ResponseHead head, long nowMillis) {
        Optional<Long> limit = number(head, "x-ratelimit-limit-requests").or(() -> number(head, "anthropic-ratelimit-requests-limit"));
        Optional<Long> remaining = number(head, "x-ratelimit-remaining-requests")
                .or(() -> number(head, "anthropic-ratelimit-requests-remaining"));
        if (limit.isEmpty() || remaining.isEmpty() || limit.get() <= 0) {
            return new Silent();
        }
        if (remaining.get() >= limit.get() * LOW_SHARE) {
            return new Healthy();
        }
        Optional<Long> resetIn = head.first("x-ratelimit-reset-requests").flatMap(RetryHints::parseDuration)
                .or(() -> head.first("anthropic-ratelimit-requests-reset").flatMap(v -> RetryHints.parseResetTime(v, nowMillis)));
        if (resetIn.isEmpty() || resetIn.get() <= 0) {
            return new Silent();
        }
        long left = Math.max(0, remaining.get());
        long spacing = Math.max(1, resetIn.get() / (left + 1));
        return new Low(new ConnectionGates.Pacing(spacing, nowMillis + resetIn.get(), limit.get(), left));
    }

    /**
     * Applies an answer's announcement to a connection's gate: low → pace, healthy → stop pacing.
     *
     * @param gates the gates
     * @param connectionId the connection that answered
     * @param head the answer's head (null: nothing)
     * @param nowMillis now
     */
    public static void apply(ConnectionGates gates, String connectionId, ResponseHead head, long nowMillis) {
        apply(gates, ClusterEvents.NONE, connectionId, head, nowMillis);
    }

    /**
     * Applies an answer's announcement to a connection's gate, and announces it to the other
     * instances (NF-6): what one instance learned of an account paces it on all of them.
     *
     * @param gates the gates
     * @param events the channel to the other instances
     * @param connectionId the connection that answered
     * @param head the answer's head (null: nothing)
     * @param nowMillis now
     */
    public static void apply(ConnectionGates gates, ClusterEvents events, String connectionId, ResponseHead head, long nowMillis) {
        if (!QuotaObservations.announcesLimits(head)) {
            return;
        }
        switch (read(head, nowMillis)) {
            case Low low -> {
                ConnectionGates.Pacing p = low.pacing();
                gates.learn(connectionId, p);
                events.publish(new ClusterEvent.PacingLearned(connectionId, p.spacingMs(), p.untilMs() - nowMillis, p.limit(), p.remaining()));
            }
            case Healthy h -> {
                if (gates.learned(connectionId) != null) {
                    gates.learn(connectionId, null);
                    events.publish(new ClusterEvent.PacingEnded(connectionId));
                }
            }
            case Silent s -> {
                // nothing announced: whatever was learned runs out at its reset
            }
        }
    }

    private static Optional<Long> number(ResponseHead head, String name) {
        return head.first(name).flatMap(v -> {
            try {
                return Optional.of(Long.parseLong(v.strip()));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }
}
