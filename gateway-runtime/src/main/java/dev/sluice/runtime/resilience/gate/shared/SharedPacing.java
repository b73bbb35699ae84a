package dev.sluice.runtime.resilience.gate.shared;

/**
 * Start slots several instances share (SPEC NF-6, RQ-10 across instances): a request on a paced
 * connection that got its instance's local turn asks here when it may start, so that the spacing
 * between starts holds over every instance together instead of per instance. The default,
 * {@link #NONE}, shares nothing: the local gate's spacing is the only one, as on a single instance.
 *
 * <p>Asked only while a spacing is in force (configured or learned), never for unpaced
 * connections. An implementation bounds every call; when its store cannot be reached it answers
 * {@link Slot#LOCAL} (fail open to the instance's own spacing) rather than making requests wait.
 */
public interface SharedPacing {

    /** Shares nothing: every request is paced by its instance alone. */
    SharedPacing NONE = (connectionId, spacingMs, maxDelayMs) -> Slot.LOCAL;

    /** What the shared store answered. */
    enum Kind {
        /** The slot is this request's: it starts after {@link Slot#delayMs()}. */
        GRANTED,
        /** The next slot lies beyond the request's wait bound; nothing was taken. */
        BEYOND,
        /** The store could not be reached: the instance's own spacing decides. */
        LOCAL
    }

    /**
     * A start slot.
     *
     * @param kind granted, beyond the wait bound, or local only
     * @param delayMs how long from now the slot lies, ms (0 for {@link Kind#LOCAL})
     */
    record Slot(Kind kind, long delayMs) {

        /** The store could not be reached. */
        public static final Slot LOCAL = new Slot(Kind.LOCAL, 0);

        /** Checks the values. */
        public Slot {
            java.util.Objects.requireNonNull(kind, "kind is null");
            if (delayMs < 0) {
                throw new IllegalArgumentException("negative delay: " + delayMs);
            }
        }
    }

    /**
     * Takes the connection's next start slot — {@code max(now, last + spacingMs)} on the store's
     * clock — when it lies at most {@code maxDelayMs} ahead, recording it as the connection's last
     * start; a slot further ahead is answered {@link Kind#BEYOND} and not taken.
     *
     * @param connectionId the connection
     * @param spacingMs the least time between two starts in force now, &gt; 0
     * @param maxDelayMs the longest this request may still wait, ≥ 0
     * @return the slot; {@link Slot#LOCAL} when the store is unreachable (fail open)
     */
    Slot next(String connectionId, long spacingMs, long maxDelayMs);

    /** @return true when start slots are shared with other instances */
    default boolean shared() {
        return this != NONE;
    }
}
