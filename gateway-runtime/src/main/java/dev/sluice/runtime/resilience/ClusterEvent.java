package dev.sluice.runtime.resilience;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.resilience.engine.ClusterSync;
import java.util.ArrayList;
import java.util.List;

/**
 * A change to an instance's in-memory resilience state that every other instance must make too
 * (SPEC NF-6): a queue's pause (RQ-4), learned pacing (RQ-10), an operator's reset or clear. Times
 * travel as the milliseconds left, never as epoch times, because the instances' clocks may differ:
 * a receiver adds them to its own clock. An event names connections, providers and models only —
 * never a secret.
 *
 * <p>On the wire ({@link #encode}) an event is one line per field, the first the format, the second
 * the sender's instance id, the third the kind; a field holds no line break (ids and model names
 * never do; an event that would need one is not sent).
 */
public sealed interface ClusterEvent {

    /** The format of {@link #encode}; a receiver ignores events of another format. */
    String FORMAT = "sluice-event-1";

    /**
     * RQ-4: nothing starts on a connection (or, with a model, nothing for that model) for {@code remainingMs}.
     *
     * @param connectionId the connection
     * @param model the upstream model when the provider's limits are per model, else null
     * @param remainingMs how long from now
     */
    record Paused(String connectionId, String model, long remainingMs) implements ClusterEvent {
        /** Checks the fields. */
        public Paused {
            requireNonNull(connectionId, "connectionId is null");
        }
    }

    /**
     * RQ-10: a connection is paced until its announced reset, {@code remainingMs} from now.
     *
     * @param connectionId the connection
     * @param spacingMs the least time between two starts
     * @param remainingMs how long from now the pacing lasts
     * @param limit the announced request limit
     * @param remaining the announced requests left
     */
    record PacingLearned(String connectionId, long spacingMs, long remainingMs, long limit, long remaining) implements ClusterEvent {
        /** Checks the fields. */
        public PacingLearned {
            requireNonNull(connectionId, "connectionId is null");
        }
    }

    /**
     * RQ-10: a connection's upstream announced a healthy window again: its learned pacing ends.
     *
     * @param connectionId the connection
     */
    record PacingEnded(String connectionId) implements ClusterEvent {
        /** Checks the fields. */
        public PacingEnded {
            requireNonNull(connectionId, "connectionId is null");
        }
    }

    /**
     * {@code POST /api/resilience/reset}: every breaker (and the provider cooldown windows), or one
     * provider's breakers.
     *
     * @param provider the provider, or null for all
     */
    record BreakersReset(String provider) implements ClusterEvent {
    }

    /**
     * PC-2: a success ended a provider's cooldown window on the instance that had crossed it.
     *
     * @param provider the provider
     */
    record WindowEnded(String provider) implements ClusterEvent {
        /** Checks the fields. */
        public WindowEnded {
            requireNonNull(provider, "provider is null");
        }
    }

    /**
     * CC-8 ({@code POST /api/resilience/cooldowns}): a connection's cooldown was cleared, with its
     * model lockouts and its provider-cooldown entry.
     *
     * @param connectionId the connection
     */
    record ConnectionCleared(String connectionId) implements ClusterEvent {
        /** Checks the fields. */
        public ConnectionCleared {
            requireNonNull(connectionId, "connectionId is null");
        }
    }

    /**
     * ML-5 ({@code DELETE /api/resilience/model-cooldowns}): one key model re-enabled on a connection.
     *
     * @param provider the provider
     * @param connectionId the connection
     * @param model the key model
     */
    record ModelCleared(String provider, String connectionId, String model) implements ClusterEvent {
        /** Checks the fields. */
        public ModelCleared {
            requireNonNull(provider, "provider is null");
            requireNonNull(connectionId, "connectionId is null");
            requireNonNull(model, "model is null");
        }
    }

    /**
     * A write to one of the shared boards (cooldowns, model lockouts, breakers, provider windows),
     * sent by the instance that wrote it so that every other instance's copy of the board follows
     * without reading Redis on its requests (issue 26). {@link ClusterSync} leaves these alone: the
     * boards' mirrors apply them.
     */
    sealed interface Announcement extends ClusterEvent {
    }

    /**
     * A connection's cooldown was announced for {@code remainingMs}, or withdrawn (0).
     *
     * @param connectionId the connection
     * @param remainingMs how long from now, 0 when it ended
     */
    record CooldownAnnounced(String connectionId, long remainingMs) implements Announcement {
        /** Checks the fields. */
        public CooldownAnnounced {
            requireNonNull(connectionId, "connectionId is null");
        }
    }

    /**
     * A provider's cooldown window was announced for {@code remainingMs}, or withdrawn (0).
     *
     * @param provider the provider
     * @param remainingMs how long from now, 0 when it ended
     */
    record WindowAnnounced(String provider, long remainingMs) implements Announcement {
        /** Checks the fields. */
        public WindowAnnounced {
            requireNonNull(provider, "provider is null");
        }
    }

    /**
     * A breaker's shared state: open for {@code openMs} more (0: half-open, ask Redis for the probe),
     * its key gone after {@code keyMs} (0: closed everywhere).
     *
     * @param provider the provider
     * @param host the host
     * @param openMs how long it refuses from now
     * @param keyMs how long its shared state lasts from now, 0 when it was closed
     */
    record BreakerAnnounced(String provider, String host, long openMs, long keyMs) implements Announcement {
        /** Checks the fields. */
        public BreakerAnnounced {
            requireNonNull(provider, "provider is null");
            requireNonNull(host, "host is null");
        }
    }

    /**
     * A model lockout announced on a connection's slot.
     *
     * @param connectionId the connection
     * @param slot the slot ({@code family:…}, {@code model:…}, {@code exact:…}, {@code retry:…})
     * @param model the key model
     * @param scope the lock's scope name
     * @param reason the failure reason's name
     * @param remainingMs how long from now
     */
    record LockAnnounced(String connectionId, String slot, String model, String scope, String reason, long remainingMs)
            implements Announcement {
        /** Checks the fields. */
        public LockAnnounced {
            requireNonNull(connectionId, "connectionId is null");
            requireNonNull(slot, "slot is null");
            requireNonNull(model, "model is null");
            requireNonNull(scope, "scope is null");
            requireNonNull(reason, "reason is null");
        }
    }

    /**
     * Announced model lockouts of a connection were withdrawn: some slots, or all (empty list).
     *
     * @param connectionId the connection
     * @param slots the slots, empty for every slot of the connection
     */
    record LocksWithdrawn(String connectionId, List<String> slots) implements Announcement {
        /** Checks the fields. */
        public LocksWithdrawn {
            requireNonNull(connectionId, "connectionId is null");
            slots = List.copyOf(slots);
        }
    }

    /**
     * The event as sent.
     *
     * @param sender the sending instance's id
     * @return the message, or null when a field holds a line break (not sendable)
     */
    default String encode(String sender) {
        List<String> f = new ArrayList<>(List.of(FORMAT, sender));
        switch (this) {
            case Paused p -> f.addAll(List.of("paused", p.connectionId(), p.model() == null ? "" : p.model(), Long.toString(p.remainingMs())));
            case PacingLearned l -> f.addAll(List.of("learned", l.connectionId(), Long.toString(l.spacingMs()), Long.toString(l.remainingMs()),
                    Long.toString(l.limit()), Long.toString(l.remaining())));
            case PacingEnded e -> f.addAll(List.of("unlearned", e.connectionId()));
            case BreakersReset r -> f.addAll(List.of("reset", r.provider() == null ? "" : r.provider()));
            case WindowEnded w -> f.addAll(List.of("window-ended", w.provider()));
            case ConnectionCleared c -> f.addAll(List.of("connection-cleared", c.connectionId()));
            case ModelCleared m -> f.addAll(List.of("model-cleared", m.provider(), m.connectionId(), m.model()));
            case CooldownAnnounced c -> f.addAll(List.of("cooldown", c.connectionId(), Long.toString(c.remainingMs())));
            case WindowAnnounced w -> f.addAll(List.of("window", w.provider(), Long.toString(w.remainingMs())));
            case BreakerAnnounced b -> f.addAll(List.of("breaker", b.provider(), b.host(), Long.toString(b.openMs()), Long.toString(b.keyMs())));
            case LockAnnounced l -> f.addAll(List.of("lock", l.connectionId(), l.slot(), l.model(), l.scope(), l.reason(),
                    Long.toString(l.remainingMs())));
            case LocksWithdrawn w -> {
                f.addAll(List.of("unlock", w.connectionId()));
                f.addAll(w.slots());
            }
        }
        for (String s : f) {
            if (s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
                return null;
            }
        }
        return String.join("\n", f);
    }

    /**
     * A received message.
     *
     * @param message as sent
     * @return the sender and the event, or null when the message is not one this version reads
     */
    static Received decode(String message) {
        String[] f = message.split("\n", -1);
        if (f.length < 3 || !FORMAT.equals(f[0])) {
            return null;
        }
        try {
            ClusterEvent e = switch (f[2]) {
                case "paused" -> f.length == 6 ? new Paused(f[3], f[4].isEmpty() ? null : f[4], Long.parseLong(f[5])) : null;
                case "learned" -> f.length == 8
                        ? new PacingLearned(f[3], Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]))
                        : null;
                case "unlearned" -> f.length == 4 ? new PacingEnded(f[3]) : null;
                case "reset" -> f.length == 4 ? new BreakersReset(f[3].isEmpty() ? null : f[3]) : null;
                case "window-ended" -> f.length == 4 ? new WindowEnded(f[3]) : null;
                case "connection-cleared" -> f.length == 4 ? new ConnectionCleared(f[3]) : null;
                case "model-cleared" -> f.length == 6 ? new ModelCleared(f[3], f[4], f[5]) : null;
                case "cooldown" -> f.length == 5 ? new CooldownAnnounced(f[3], Long.parseLong(f[4])) : null;
                case "window" -> f.length == 5 ? new WindowAnnounced(f[3], Long.parseLong(f[4])) : null;
                case "breaker" -> f.length == 7 ? new BreakerAnnounced(f[3], f[4], Long.parseLong(f[5]), Long.parseLong(f[6])) : null;
                case "lock" -> f.length == 9 ? new LockAnnounced(f[3], f[4], f[5], f[6], f[7], Long.parseLong(f[8])) : null;
                case "unlock" -> f.length >= 4 ? new LocksWithdrawn(f[3], List.of(f).subList(4, f.length)) : null;
                default -> null;
            };
            return e == null ? null : new Received(f[1], e);
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    /**
     * A decoded message.
     *
     * @param sender the sending instance's id
     * @param event the event
     */
    record Received(String sender, ClusterEvent event) {
    }
}
