package dev.sluice.runtime.resilience;

import dev.sluice.runtime.resilience.engine.ClusterSync;
import java.util.function.Consumer;

/**
 * The channel on which an instance tells the others of changes to the resilience state it keeps
 * in memory (SPEC NF-6): the callers that pause, pace, reset or clear publish; {@link ClusterSync}
 * applies what the others published. The default, {@link #NONE}, carries nothing (one instance).
 *
 * <p>An implementation never delivers an instance's own events back to it, bounds every publish and
 * never throws from it: when its transport cannot be reached, the change stays on the instance that
 * made it (and shared keys, where a mechanism has them, still carry it). Events published while a
 * receiver is disconnected are lost to it.
 */
public interface ClusterEvents {

    /** Carries nothing. */
    ClusterEvents NONE = new ClusterEvents() {
        @Override
        public void publish(ClusterEvent event) {
        }

        @Override
        public void subscribe(Consumer<ClusterEvent> receiver) {
        }
    };

    /**
     * Tells every other instance; never throws.
     *
     * @param event the change made here
     */
    void publish(ClusterEvent event);

    /**
     * Starts delivering the other instances' events, one at a time, on a thread of the
     * implementation's own. Call once.
     *
     * @param receiver applies an event to this instance's state (and publishes nothing)
     */
    void subscribe(Consumer<ClusterEvent> receiver);

    /** @return true when events reach other instances */
    default boolean shared() {
        return this != NONE;
    }
}
