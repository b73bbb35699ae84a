package dev.sluice.runtime.resilience.cooldown;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.CoolingDown;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.Terminal;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.ConnectionStore;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

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
 *
 * <p>One instance's mechanism: it knows nothing of the others. Whoever must take part in a
 * transition atomically (NF-6: the shared decorator) is its {@link CooldownListener}, called under
 * the connection's lock right where the transition is decided and written.
 */
final class LocalConnectionCooldowns implements ConnectionCooldowns {

    /** Characters of the upstream error kept in {@code lastError}. */
    static final int LAST_ERROR_MAX = 200;
    /** The error code a stall leaves on the connection. */
    static final String STREAM_STALL_CODE = "STREAM_STALL_TIMEOUT";

    private final ConnectionStore store;
    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
    private final CooldownSteps steps = new CooldownSteps();
    private volatile CooldownListener listener = CooldownListener.NONE;

    LocalConnectionCooldowns(ConnectionStore store, InstantSource clock, Supplier<ResilienceSettings> settings) {
        this.store = requireNonNull(store, "store is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.settings = requireNonNull(settings, "settings is null");
    }

    @Override
    public synchronized void listen(CooldownListener listener) {
        requireNonNull(listener, "listener is null");
        if (this.listener != CooldownListener.NONE) {
            throw new IllegalStateException("connection cooldowns already have a listener");
        }
        this.listener = listener;
    }

    @Override
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
            if (!listener.mayStart(connectionId, step.cooldownMs())) {
                // CC-3: the burst already took its step elsewhere (NF-6: another instance's failure)
                return new Outcome(0, next.wireName(), true);
            }
            write(connectionId, s, from.moveTo(next).stored(lastError, type, errorCode, step.backoffLevel(),
                    step.expiredRetries()));
            return new Outcome(step.cooldownMs(), next.wireName(), false);
        } finally {
            lock.unlock();
        }
    }

    @Override
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

    @Override
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

    @Override
    public void onSuccess(Connection c) {
        if (c.state().isActive() || ConnectionCooldowns.isTerminal(c.state().testStatus())) {
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

    @Override
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

    @Override
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
     * {@link #clear} as another instance made it (NF-6): the row is already written and arrives on
     * its own; only the streak this instance counted is forgotten.
     */
    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        if (event instanceof ClusterEvent.ConnectionCleared c) {
            steps.forget(c.connectionId());
        }
    }

    /**
     * A terminal connection never serves; a cooling one not until it ends (CC-7: a past end is
     * simply ignored).
     */
    @Override
    public boolean holds(HoldCheck check) {
        Connection conn = check.connection();
        if (ConnectionCooldowns.isTerminal(conn.state().testStatus())) {
            return check.hold(Exclusion.Reason.TERMINAL, 0);
        }
        Long until = conn.state().rateLimitedUntil();
        if (until != null && until > check.now()) {
            return check.hold(Exclusion.Reason.UNAVAILABLE, until - check.now(), reasonOf(conn.state().lastErrorType()));
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
            listener.ended(connectionId);
        }
    }

    /** Writes a connection's state, and tells the listener of a cooldown that runs or ended with it. */
    private void write(String connectionId, ConnectionState before, ConnectionState next) {
        store.updateState(connectionId, next);
        long now = clock.millis();
        Long until = next.rateLimitedUntil();
        if (until != null && until > now) {
            listener.cooling(connectionId, until - now);
        } else if (before.rateLimitedUntil() != null && before.rateLimitedUntil() > now) {
            listener.ended(connectionId);
        }
    }

    private static String truncate(String s) {
        if (s == null) {
            return null;
        }
        return s.length() <= LAST_ERROR_MAX ? s : s.substring(0, LAST_ERROR_MAX) + "…";
    }
}
