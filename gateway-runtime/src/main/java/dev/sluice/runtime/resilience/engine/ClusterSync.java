package dev.sluice.runtime.resilience.engine;

import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.gate.ConnectionGates;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.ClusterEvent.BreakersReset;
import dev.sluice.runtime.resilience.ClusterEvent.ConnectionCleared;
import dev.sluice.runtime.resilience.ClusterEvent.ModelCleared;
import dev.sluice.runtime.resilience.ClusterEvent.PacingEnded;
import dev.sluice.runtime.resilience.ClusterEvent.PacingLearned;
import dev.sluice.runtime.resilience.ClusterEvent.Paused;
import dev.sluice.runtime.resilience.ClusterEvent.WindowEnded;
import java.time.InstantSource;

/**
 * Applies what other instances announced on the {@link ClusterEvents} channel to this instance's
 * in-memory resilience state (SPEC NF-6), as the instance that made the change applied it to its
 * own: a pause of a connection's queue or of one model's share of it (RQ-4), learned pacing and
 * its end (RQ-10), a reset of breakers and provider windows, a provider window a success ended
 * (PC-2), the clear of a connection or of one model lockout. Applying publishes nothing (no echo, no loop), and leaves the shared keys alone:
 * the instance that made the change already wrote them. Times arrive as the milliseconds left and
 * are added to this instance's own clock.
 */
public final class ClusterSync {

    private static final System.Logger LOG = System.getLogger(ClusterSync.class.getName());

    private final InstantSource clock;
    private final ConnectionGates gates;
    private final Resilience resilience;

    ClusterSync(InstantSource clock, ConnectionGates gates, Resilience resilience) {
        this.clock = requireNonNull(clock, "clock is null");
        this.gates = requireNonNull(gates, "gates is null");
        this.resilience = requireNonNull(resilience, "resilience is null");
    }

    /**
     * Starts applying the other instances' events.
     *
     * @param events the channel ({@link ClusterEvents#NONE}: nothing arrives)
     * @param clock this instance's clock
     * @param gates this instance's connection gates
     * @param resilience this instance's breakers, cooldowns, lockouts and provider windows
     * @return the applier
     */
    public static ClusterSync start(ClusterEvents events, InstantSource clock, ConnectionGates gates, Resilience resilience) {
        ClusterSync sync = new ClusterSync(clock, gates, resilience);
        events.subscribe(sync::apply);
        return sync;
    }

    /**
     * Applies one event; a failure is logged, never thrown (the next event must still arrive).
     *
     * @param event what another instance changed
     */
    void apply(ClusterEvent event) {
        try {
            long now = clock.millis();
            switch (event) {
                case Paused p -> {
                    if (p.remainingMs() > 0) {
                        if (p.model() == null) {
                            gates.pause(p.connectionId(), now + p.remainingMs());
                        } else {
                            gates.pause(p.connectionId(), p.model(), now + p.remainingMs());
                        }
                    }
                }
                case PacingLearned l -> {
                    if (l.remainingMs() > 0) {
                        gates.learn(l.connectionId(), new ConnectionGates.Pacing(l.spacingMs(), now + l.remainingMs(), l.limit(), l.remaining()));
                    }
                }
                case PacingEnded e -> {
                    if (gates.learned(e.connectionId()) != null) {
                        gates.learn(e.connectionId(), null);
                    }
                }
                case BreakersReset r -> {
                    resilience.breakers().resetHere(r.provider());
                    if (r.provider() == null) {
                        resilience.providerCooldowns().clearHere();
                    }
                }
                case WindowEnded w -> resilience.providerCooldowns().endHere(w.provider());
                case ConnectionCleared c -> {
                    resilience.cooldowns().forgetStreak(c.connectionId());
                    resilience.lockouts().clearConnectionHere(c.connectionId());
                    resilience.providerCooldowns().clearConnection(c.connectionId());
                }
                case ModelCleared m -> resilience.lockouts().clearHere(m.provider(), m.connectionId(), m.model());
                case ClusterEvent.Announcement a -> {
                    // the shared boards' mirrors apply these (redis package); nothing in memory here changes
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "could not apply another instance's " + event.getClass().getSimpleName() + ": " + e);
        }
    }
}
