package dev.sluice.runtime.resilience.cooldown;

import static java.util.Objects.requireNonNull;

import dev.sluice.runtime.store.ConnectionState;
import java.util.Map;
import java.util.Set;

/**
 * The status of a connection as connection cooldown (SPEC §8) reasons about it, and the legal moves
 * between statuses. {@link ConnectionCooldowns} checks every status it writes against
 * {@link #MOVES}.
 *
 * <p><b>Stored form.</b> The connection row keeps the status as {@code test_status} and
 * {@code rate_limited_until} (CC-1), and the admin API shows those strings; they are mapped here
 * and nowhere else ({@link #of}, {@link #stored}), so they stay exactly what they were:
 * {@code active}, {@code unavailable}, {@code banned}, {@code expired}, {@code credits_exhausted}.
 *
 * <p><b>Time.</b> A status is read at a moment: a cooldown whose end has passed is
 * {@link Active} (CC-7 lazy recovery: nothing clears it, selection simply ignores a past
 * {@code rateLimitedUntil}), although its row still says {@code unavailable} until the next write.
 * Whether a connection is cooling is decided by {@code rateLimitedUntil} alone, never by the
 * non-terminal string next to it.
 *
 * <p><b>Not moves.</b> A failure on a {@code disableCooling} connection (CC-9) records its error
 * fields and leaves the status as stored. Giving a connection new credentials starts it over as
 * {@code active} in the store; like an operator's breaker reset, that forgets the status rather
 * than moving it, and it is the only way out of a {@link Terminal} status.
 */
sealed interface ConnectionStatus permits ConnectionStatus.Active, ConnectionStatus.CoolingDown, ConnectionStatus.Terminal {

    /** The one {@link Active} status. */
    Active ACTIVE = new Active();

    /**
     * The table of legal moves, by phase. The one move the table cannot say by phase alone: a
     * cooldown in force is only ever lengthened (CC-3 absorbs a burst; EB-2 never shortens a
     * sibling's cooldown), see {@link #canMoveTo}.
     */
    Map<Phase, Set<Phase>> MOVES = Map.of(
            // a success or an operator's clear (CC-7, CC-8) resets the error fields of an active connection too
            Phase.ACTIVE, Set.of(Phase.ACTIVE, Phase.COOLING_DOWN, Phase.TERMINAL),
            Phase.COOLING_DOWN, Set.of(Phase.ACTIVE, Phase.COOLING_DOWN, Phase.TERMINAL),
            // CC-6: nothing the gateway observes ends a terminal status; a cooldown never overwrites it
            Phase.TERMINAL, Set.of());

    /**
     * The status of a stored connection at a moment (the edge from the stored form).
     *
     * @param s the connection's resilience fields
     * @param now the current time, epoch ms
     * @return {@link Terminal} for a terminal {@code testStatus}; else {@link CoolingDown} while
     *     {@code rateLimitedUntil} lies after {@code now}; else {@link #ACTIVE}
     */
    static ConnectionStatus of(ConnectionState s, long now) {
        Terminal terminal = Terminal.fromWire(requireNonNull(s.testStatus(), "testStatus is null"));
        if (terminal != null) {
            return terminal;
        }
        Long until = s.rateLimitedUntil();
        return until != null && until > now ? new CoolingDown(until) : ACTIVE;
    }

    /**
     * This status's row in {@link #MOVES}.
     *
     * @return the phase
     */
    Phase phase();

    /**
     * The stored {@code test_status} (the edge to the stored form).
     *
     * @return {@code active}, {@code unavailable} or the terminal kind's name
     */
    String wireName();

    /**
     * The stored {@code rate_limited_until}.
     *
     * @return the cooldown's end, epoch ms, or null when not cooling
     */
    Long rateLimitedUntil();

    /**
     * The stored form of this status with the rest of the connection's resilience fields.
     *
     * @param lastError last error message, or null
     * @param lastErrorType last failure reason, or null
     * @param errorCode last error code, or null
     * @param backoffLevel cooldown escalation level
     * @param expiredRetries OAuth expiry retries so far
     * @return the fields to store
     */
    default ConnectionState stored(String lastError, String lastErrorType, String errorCode, int backoffLevel,
            int expiredRetries) {
        return new ConnectionState(wireName(), rateLimitedUntil(), lastError, lastErrorType, errorCode, backoffLevel,
                expiredRetries);
    }

    /**
     * Whether a move to {@code next} is legal: {@link #MOVES} allows its phase, and a cooldown in
     * force moves to another cooldown only if that one ends later.
     *
     * @param next the status to move to
     * @return true when legal
     */
    default boolean canMoveTo(ConnectionStatus next) {
        if (!MOVES.get(phase()).contains(next.phase())) {
            return false;
        }
        return !(this instanceof CoolingDown current && next instanceof CoolingDown later) || later.until() > current.until();
    }

    /**
     * Checks a move.
     *
     * @param next the status to move to
     * @return {@code next}
     * @throws IllegalStateException when the move is not legal (a bug in the caller, not an
     *     upstream's doing)
     */
    default ConnectionStatus moveTo(ConnectionStatus next) {
        if (!canMoveTo(next)) {
            throw new IllegalStateException("illegal connection status move " + this + " -> " + next);
        }
        return next;
    }

    /** The rows and columns of {@link #MOVES}: a status without its data. */
    enum Phase {
        /** Serving. */
        ACTIVE,
        /** Skipped until its cooldown ends. */
        COOLING_DOWN,
        /** Out of service for good. */
        TERMINAL
    }

    /** Serving; also a connection whose cooldown has run out (CC-7). Stored as {@code active}. */
    record Active() implements ConnectionStatus {
        @Override
        public Phase phase() {
            return Phase.ACTIVE;
        }

        @Override
        public String wireName() {
            return "active";
        }

        @Override
        public Long rateLimitedUntil() {
            return null;
        }
    }

    /**
     * Skipped by selection until {@code until} (exclusive: cooling while {@code now < until}).
     * Stored as {@code unavailable} with {@code rateLimitedUntil = until}.
     *
     * @param until the end of the cooldown, epoch ms
     */
    record CoolingDown(long until) implements ConnectionStatus {
        @Override
        public Phase phase() {
            return Phase.COOLING_DOWN;
        }

        @Override
        public String wireName() {
            return "unavailable";
        }

        @Override
        public Long rateLimitedUntil() {
            return until;
        }
    }

    /**
     * Out of service until an operator gives the connection new credentials (CC-6). Stored as the
     * kind's name, without {@code rateLimitedUntil}.
     *
     * @param kind why
     */
    record Terminal(Kind kind) implements ConnectionStatus {
        /** The account was deactivated, or refused three times within an hour. */
        static final Terminal BANNED = new Terminal(Kind.BANNED);
        /** The OAuth grant stayed expired after {@link ConnectionCooldowns#EXPIRED_RETRY_MAX} retries. */
        static final Terminal EXPIRED = new Terminal(Kind.EXPIRED);
        /** The account has no credits left. */
        static final Terminal CREDITS_EXHAUSTED = new Terminal(Kind.CREDITS_EXHAUSTED);

        /** Validates. */
        public Terminal {
            requireNonNull(kind, "kind is null");
        }

        /**
         * The terminal status stored as {@code testStatus}, or null when it is not terminal.
         *
         * @param testStatus the stored status
         * @return the status, or null
         */
        static Terminal fromWire(String testStatus) {
            for (Kind k : Kind.values()) {
                if (k.wireName.equals(testStatus)) {
                    return of(k);
                }
            }
            return null;
        }

        /**
         * The terminal status of a kind.
         *
         * @param kind the kind
         * @return the shared instance
         */
        static Terminal of(Kind kind) {
            return switch (kind) {
                case BANNED -> BANNED;
                case EXPIRED -> EXPIRED;
                case CREDITS_EXHAUSTED -> CREDITS_EXHAUSTED;
            };
        }

        @Override
        public Phase phase() {
            return Phase.TERMINAL;
        }

        @Override
        public String wireName() {
            return kind.wireName;
        }

        @Override
        public Long rateLimitedUntil() {
            return null;
        }
    }

    /** Why a connection is terminal (CC-6). */
    enum Kind {
        /** Stored as {@code banned}. */
        BANNED("banned"),
        /** Stored as {@code expired}. */
        EXPIRED("expired"),
        /** Stored as {@code credits_exhausted}. */
        CREDITS_EXHAUSTED("credits_exhausted");

        private final String wireName;

        Kind(String wireName) {
            this.wireName = wireName;
        }

        /**
         * The stored form.
         *
         * @return the {@code testStatus} of this kind
         */
        String wireName() {
            return wireName;
        }
    }
}
