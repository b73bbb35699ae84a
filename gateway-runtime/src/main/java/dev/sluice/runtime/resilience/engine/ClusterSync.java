package dev.sluice.runtime.resilience.engine;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.Mechanism;
import java.time.InstantSource;
import java.util.List;

/**
 * Delivers what other instances announced on the {@link ClusterEvents} channel to this instance's
 * mechanisms (SPEC NF-6), each of which applies what concerns it ({@link Mechanism#onClusterEvent})
 * as the instance that made the change applied it to its own: a pause of a connection's queue or
 * of one model's share of it (RQ-4), learned pacing and its end (RQ-10), a reset of breakers and
 * provider windows, a provider window a success ended (PC-2), the clear of a connection or of one
 * model lockout. Applying publishes nothing (no echo, no loop), and leaves the shared keys alone:
 * the instance that made the change already wrote them. Times arrive as the milliseconds left and
 * are added to this instance's own clock.
 */
public final class ClusterSync {

    private static final System.Logger LOG = System.getLogger(ClusterSync.class.getName());

    private final InstantSource clock;
    private final List<Mechanism> mechanisms;

    ClusterSync(InstantSource clock, List<? extends Mechanism> mechanisms) {
        this.clock = requireNonNull(clock, "clock is null");
        this.mechanisms = List.copyOf(mechanisms);
    }

    /**
     * Starts applying the other instances' events.
     *
     * @param events the channel ({@link ClusterEvents#NONE}: nothing arrives)
     * @param clock this instance's clock
     * @param mechanisms this instance's mechanisms (the engine's and the connection gates)
     * @return the applier
     */
    public static ClusterSync start(ClusterEvents events, InstantSource clock, List<? extends Mechanism> mechanisms) {
        ClusterSync sync = new ClusterSync(clock, mechanisms);
        events.subscribe(sync::apply);
        return sync;
    }

    /**
     * Applies one event to every mechanism; a failure is logged, never thrown (the other
     * mechanisms, and the next event, must still get theirs). The shared boards' mirrors apply the
     * {@link ClusterEvent.Announcement}s (redis package) before this.
     *
     * @param event what another instance changed
     */
    void apply(ClusterEvent event) {
        long now = clock.millis();
        for (Mechanism m : mechanisms) {
            try {
                m.onClusterEvent(event, now);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "could not apply another instance's " + event.getClass().getSimpleName() + ": " + e);
            }
        }
    }
}
