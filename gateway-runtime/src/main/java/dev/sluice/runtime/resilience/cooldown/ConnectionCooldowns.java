package dev.sluice.runtime.resilience.cooldown;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.CooldownProfile;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.CoolingDown;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.Terminal;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Connection cooldown (SPEC §8): skips one bad key or account while the provider's other
 * connections keep serving. The state lives on the connection (CC-1) and survives restarts.
 *
 * <ul>
 *   <li>CC-2 durations: {@code min(base × 2^min(backoffLevel, maxBackoffSteps), maxCooldownMs)};
 *       an API key's 429 prefers the upstream hint; {@code backoffLevel} survives expiry and only
 *       a success resets it (BO-1).</li>
 *   <li>CC-3 thundering herd: writes to one connection are serialized, and a transient failure
 *       that arrives while a cooldown is active is absorbed (no second backoff step).</li>
 *   <li>CC-4 concurrency-limit 429: flat 1 s (or the hint), backoff unchanged.</li>
 *   <li>CC-6 terminal states: {@code banned} (deactivation text, or a third
 *       {@code request_rejected} within 1 h — the first two cool 5 and 15 min), {@code expired}
 *       (after {@link #EXPIRED_RETRY_MAX} OAuth retries with backoff), {@code credits_exhausted};
 *       a cooldown never overwrites them.</li>
 *   <li>CC-7 lazy recovery (a past {@code rateLimitedUntil} is simply ignored by selection) and
 *       clear-on-success; CC-9 {@code disableCooling}: failures are recorded, never cooled.</li>
 * </ul>
 * Every status written is a {@link ConnectionStatus} move checked against its table of legal moves;
 * the guards here (terminal first, a cooldown only lengthened) keep the moves legal, and the check
 * turns a future mistake into an exception instead of a silently revived account.
 */
public final class ConnectionCooldowns implements Mechanism {

    /** CC-4: the flat cooldown of a concurrency-limited 429 without a hint. */
    public static final long CONCURRENCY_LIMIT_COOLDOWN_MS = FailureClassifier.CONCURRENCY_LIMIT_COOLDOWN_MS;
    /** CC-6: OAuth expiry retries before the connection becomes terminal {@code expired}. */
    public static final int EXPIRED_RETRY_MAX = 3;
    /** CC-6: the window in which three {@code request_rejected} answers make a connection {@code banned}. */
    public static final long REQUEST_REJECTED_WINDOW_MS = 3_600_000;
    /** CC-6: cooldowns of the first and second {@code request_rejected} answer. */
    public static final long[] REQUEST_REJECTED_COOLDOWNS_MS = {300_000, 900_000};
    /** CC-6: the answer that turns a request-rejected streak into a ban. */
    public static final int REQUEST_REJECTED_BAN_AT = 3;
    /** Characters of the upstream error kept in {@code lastError}. */
    static final int LAST_ERROR_MAX = 200;

    /** Terminal states (CC-6). */
    public static final Set<String> TERMINAL = Arrays.stream(ConnectionStatus.Kind.values())
            .map(ConnectionStatus.Kind::wireName).collect(Collectors.toUnmodifiableSet());

    private final ConnectionStore store;
    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
    private final CooldownSteps steps = new CooldownSteps();
    private final CooldownBoard board;

    /**
     * Creates the mechanism.
     *
     * @param store the connections (state is written through it)
     * @param clock the clock
     * @param settings the live settings
     * @param board where cooldowns are announced to the other instances ({@link CooldownBoard#NONE}: nowhere)
     */
    public ConnectionCooldowns(ConnectionStore store, InstantSource clock, Supplier<ResilienceSettings> settings, CooldownBoard board) {
        this.store = store;
        this.clock = clock;
        this.settings = settings;
        this.board = java.util.Objects.requireNonNull(board, "board is null");
    }

    /**
     * What a failure did to a connection.
     *
     * @param cooledMs the cooldown set now (0 when none was set)
     * @param testStatus the connection's status afterwards
     * @param absorbed true when an active cooldown of the same burst absorbed it (CC-3)
     */
    public record Outcome(long cooledMs, String testStatus, boolean absorbed) {
        static final Outcome NONE = new Outcome(0, ConnectionStatus.ACTIVE.wireName(), false);
    }

    /**
     * Whether a status is terminal.
     *
     * @param testStatus the status
     * @return true for {@code banned}, {@code expired}, {@code credits_exhausted}
     */
    public static boolean isTerminal(String testStatus) {
        return TERMINAL.contains(testStatus);
    }

    /**
     * Applies an account-level failure to a connection.
     *
     * @param connectionId the connection
     * @param verdict the failure's verdict (the caller decided it is the connection's business)
     * @param errorMessage the upstream error, secrets already scrubbed, or null
     * @param errorCode the upstream error code, or null
     * @return what happened
     */
    public Outcome onFailure(String connectionId, Verdict verdict, String errorMessage, String errorCode) {
        ReentrantLock lock = locks.computeIfAbsent(connectionId, k -> new ReentrantLock());
        lock.lock();
        try {
            Optional<Connection> found = store.find(connectionId);
            if (found.isEmpty()) {
                return Outcome.NONE;
            }
            Connection c = found.get();
            ConnectionState s = c.state();
            long now = clock.millis();
            ConnectionStatus from = ConnectionStatus.of(s, now);
            if (from instanceof Terminal) {
                return new Outcome(0, s.testStatus(), true);
            }
            String lastError = truncate(errorMessage);
            String type = verdict.reason().wireName();
            if (from instanceof CoolingDown && verdict.reason() == FailureReason.REQUEST_REJECTED) {
                // CC-3: refusals of one burst are one refusal; only answers after the cooldown extend the streak
                return new Outcome(0, s.testStatus(), true);
            }
            Terminal terminal = steps.terminal(connectionId, verdict, s, now);
            if (terminal != null) {
                steps.forget(connectionId);
                write(connectionId, s, from.moveTo(terminal).stored(lastError, type, errorCode, s.backoffLevel(),
                        s.expiredRetries()));
                return new Outcome(0, terminal.wireName(), false);
            }
            CooldownSteps.Step step = steps.step(c, settings.get().connectionCooldown().forClass(c.authType()), verdict, s);
            if (c.disableCooling()) {
                // CC-9: recorded, never cooled; not a move: the status stays as stored, byte for byte
                write(connectionId, s, new ConnectionState(s.testStatus(), s.rateLimitedUntil(), lastError, type, errorCode,
                        s.backoffLevel(), step.expiredRetries()));
                return new Outcome(0, s.testStatus(), false);
            }
            CoolingDown next = new CoolingDown(now + step.cooldownMs());
            if (from instanceof CoolingDown current) {
                // CC-3: the burst that set this cooldown already took its backoff step; a declared or
                // hinted end that lies further out is a fact, not an escalation, and still extends it
                if (!step.fromFormula() && next.until() > current.until()) {
                    write(connectionId, s, from.moveTo(next).stored(lastError, type, errorCode, s.backoffLevel(),
                            step.expiredRetries()));
                    return new Outcome(step.cooldownMs(), next.wireName(), false);
                }
                return new Outcome(0, s.testStatus(), true);
            }
            if (!board.claim(connectionId, step.cooldownMs())) {
                // NF-6, CC-3: another instance's failure of the same burst cooled it and took the step
                return new Outcome(0, next.wireName(), true);
            }
            write(connectionId, s, from.moveTo(next).stored(lastError, type, errorCode, step.backoffLevel(),
                    step.expiredRetries()));
            return new Outcome(step.cooldownMs(), next.wireName(), false);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A committed stream stalled (SPEC CC-5): the error is recorded on the connection, and the
     * connection cools only when {@code streamStallCooldown.enabled} — a stall usually belongs to
     * the request (a long reasoning phase), not the account.
     *
     * @param connectionId the connection
     * @param message what happened
     */
    public void onStreamStall(String connectionId, String message) {
        if (settings.get().streamStallCooldown().enabled()) {
            onFailure(connectionId, Verdict.builder(FailureReason.STREAM_STALL, 504, LockScope.CONNECTION).build(), message,
                    STREAM_STALL_CODE);
            return;
        }
        ReentrantLock lock = locks.computeIfAbsent(connectionId, k -> new ReentrantLock());
        lock.lock();
        try {
            store.find(connectionId).ifPresent(c -> {
                ConnectionState s = c.state();
                if (ConnectionStatus.of(s, clock.millis()) instanceof Terminal) {
                    return;
                }
                write(connectionId, s, new ConnectionState(s.testStatus(), s.rateLimitedUntil(), truncate(message),
                        FailureReason.STREAM_STALL.wireName(), STREAM_STALL_CODE, s.backoffLevel(), s.expiredRetries()));
            });
        } finally {
            lock.unlock();
        }
    }

    /** The error code a stall leaves on the connection. */
    static final String STREAM_STALL_CODE = "STREAM_STALL_TIMEOUT";

    /**
     * CC-2: the cooldown at a backoff level.
     *
     * @param p the class profile
     * @param level the connection's backoff level
     * @return {@code min(base × 2^min(level, maxBackoffSteps), maxCooldownMs)}
     */
    public static long backoff(CooldownProfile p, int level) {
        int exp = Math.min(Math.min(level, p.maxBackoffSteps()), 40);
        long ms = p.baseCooldownMs() > (Long.MAX_VALUE >> exp) ? Long.MAX_VALUE : p.baseCooldownMs() << exp;
        return Math.min(ms, p.maxCooldownMs());
    }

    /**
     * EB-2: cools a connection until a given time on behalf of a sibling that shares its limits
     * (same egress IP): never terminal, never shortening a longer cooldown, never a terminal or
     * {@code disableCooling} connection; the backoff level is left as it is.
     *
     * @param connectionId the sibling
     * @param until the end of the cooldown, epoch ms
     * @param reason the failure reason to record
     * @param lastError the error to record
     * @return true when the sibling was cooled now
     */
    public boolean coolUntil(String connectionId, long until, FailureReason reason, String lastError) {
        ReentrantLock lock = locks.computeIfAbsent(connectionId, k -> new ReentrantLock());
        lock.lock();
        try {
            Optional<Connection> found = store.find(connectionId);
            if (found.isEmpty() || found.get().disableCooling()) {
                return false;
            }
            ConnectionState s = found.get().state();
            ConnectionStatus from = ConnectionStatus.of(s, clock.millis());
            if (from instanceof Terminal || (s.rateLimitedUntil() != null && s.rateLimitedUntil() >= until)) {
                return false;
            }
            write(connectionId, s, from.moveTo(new CoolingDown(until)).stored(truncate(lastError), reason.wireName(), "429",
                    s.backoffLevel(), s.expiredRetries()));
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * CC-7: a successful request clears every error field of the connection (backoff back to 0).
     * Costs nothing when the connection is already clean.
     *
     * @param c the connection as selected for the request
     */
    public void onSuccess(Connection c) {
        if (c.state().isActive() || isTerminal(c.state().testStatus())) {
            return;
        }
        ReentrantLock lock = locks.computeIfAbsent(c.id(), k -> new ReentrantLock());
        lock.lock();
        try {
            Optional<Connection> current = store.find(c.id());
            if (current.isPresent() && !current.get().state().isActive()) {
                ConnectionStatus from = ConnectionStatus.of(current.get().state(), clock.millis());
                if (!(from instanceof Terminal)) {
                    reset(c.id(), from);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * CC-8: clears the cooldown of a connection (never a terminal state).
     *
     * @param connectionId the connection
     * @return {@code cleared}, {@code unchanged} (nothing to clear) or {@code skippedTerminal}
     */
    public ClearResult clear(String connectionId) {
        ReentrantLock lock = locks.computeIfAbsent(connectionId, k -> new ReentrantLock());
        lock.lock();
        try {
            Optional<Connection> c = store.find(connectionId);
            if (c.isEmpty()) {
                return ClearResult.UNCHANGED;
            }
            ConnectionStatus from = ConnectionStatus.of(c.get().state(), clock.millis());
            if (from instanceof Terminal) {
                return ClearResult.SKIPPED_TERMINAL;
            }
            boolean hadStreak = steps.forget(connectionId);
            if (c.get().state().equals(ConnectionState.ACTIVE)) {
                return hadStreak ? ClearResult.CLEARED : ClearResult.UNCHANGED;
            }
            reset(connectionId, from);
            return ClearResult.CLEARED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Issue 27: brings a terminal connection ({@code banned}, {@code expired},
     * {@code credits_exhausted}) back to {@code active} once the operator has dealt with the cause
     * (credit refilled, account restored) without new credentials. Like new credentials, it forgets
     * the status rather than moving it (there is no legal move out of a terminal status).
     *
     * @param connectionId the connection
     * @return true when it was terminal and is active now; false when it is unknown or not terminal
     */
    public boolean reactivate(String connectionId) {
        ReentrantLock lock = locks.computeIfAbsent(connectionId, k -> new ReentrantLock());
        lock.lock();
        try {
            Optional<Connection> c = store.find(connectionId);
            if (c.isEmpty() || !(ConnectionStatus.of(c.get().state(), clock.millis()) instanceof Terminal)) {
                return false;
            }
            steps.forget(connectionId);
            store.updateState(connectionId, ConnectionStatus.ACTIVE.stored(null, null, null, 0, 0));
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #clear} as another instance made it (NF-6): the row and the shared key are already
     * written and arrive on their own; only the streak this instance counted is forgotten.
     */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        if (event instanceof ClusterEvent.ConnectionCleared c) {
            steps.forget(c.connectionId());
        }
    }

    /**
     * A terminal connection never serves; a cooling one (its durable state, or NF-6: another
     * instance's announcement, which its durable state follows within a second) not until it ends.
     */
    @Override
    public boolean holds(HoldCheck check) {
        Connection conn = check.connection();
        if (isTerminal(conn.state().testStatus())) {
            return check.hold(Exclusion.Reason.TERMINAL, 0);
        }
        Long until = conn.state().rateLimitedUntil();
        if (until != null && until > check.now()) {
            return check.hold(Exclusion.Reason.UNAVAILABLE, until - check.now(), reasonOf(conn.state().lastErrorType()));
        }
        if (board.shared()) {
            long announced = board.remainingMs(conn.id());
            if (announced > 0) {
                return check.hold(Exclusion.Reason.UNAVAILABLE, announced);
            }
        }
        return false;
    }

    /** A stored {@code lastErrorType} as a reason, or null. */
    private static FailureReason reasonOf(String wire) {
        if (wire == null) {
            return null;
        }
        for (FailureReason r : FailureReason.values()) {
            if (r.wireName().equals(wire)) {
                return r;
            }
        }
        return null;
    }

    /**
     * Cools the connection for a {@code connection}-scoped failure; for a rate or quota 429 that no
     * model lockout took (lockout is off by default); and (issue 32) for a 503, the service's, only
     * when the operator says so.
     */
    @Override
    public void onFailure(FailedCandidate failed) {
        if (!failed.concernsTheConnection()) {
            return;
        }
        Verdict v = failed.verdict();
        LockScope scope = failed.lockScope();
        boolean accountWide = scope == LockScope.CONNECTION;
        boolean untakenLimit = !failed.tookModelLock() && scope == LockScope.MODEL && !failed.ruleOnUncoolable()
                && (v.reason() == FailureReason.RATE_LIMIT_EXCEEDED || v.reason() == FailureReason.QUOTA_EXHAUSTED);
        boolean unavailable = !failed.tookModelLock() && v.status() == 503 && v.reason() == FailureReason.SERVER_ERROR
                && settings.get().serviceUnavailableCooldown().enabled();
        if (accountWide || untakenLimit || unavailable) {
            onFailure(failed.candidate().connection().id(), v, failed.errorMessage(), failed.errorCode());
        }
    }

    @Override
    public void onSuccess(Candidate served) {
        onSuccess(served.connection());
    }

    @Override
    public void onStreamStall(Candidate stalled, String message) {
        onStreamStall(stalled.connection().id(), message);
    }

    /** CC-7, CC-8: back to active with every error field and the backoff cleared. */
    private void reset(String connectionId, ConnectionStatus from) {
        store.updateState(connectionId, from.moveTo(ConnectionStatus.ACTIVE).stored(null, null, null, 0, 0));
        if (from instanceof CoolingDown) {
            board.cleared(connectionId);
        }
    }

    /**
     * Writes a connection's state, and announces a cooldown that starts or ends with it to the
     * other instances (NF-6) right after the durable write.
     */
    private void write(String connectionId, ConnectionState before, ConnectionState next) {
        store.updateState(connectionId, next);
        if (!board.shared()) {
            return;
        }
        long now = clock.millis();
        Long until = next.rateLimitedUntil();
        if (until != null && until > now) {
            board.cooled(connectionId, until - now);
        } else if (before.rateLimitedUntil() != null && before.rateLimitedUntil() > now) {
            board.cleared(connectionId);
        }
    }

    private static String truncate(String s) {
        if (s == null) {
            return null;
        }
        return s.length() <= LAST_ERROR_MAX ? s : s.substring(0, LAST_ERROR_MAX) + "…";
    }
}
