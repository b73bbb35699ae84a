package dev.sluice.runtime.resilience.cooldown;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.CooldownProfile;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Connection cooldown (SPEC §8) as the engine, egress locks and the admin API see it: one
 * instance's mechanism ({@link #local}), or that mechanism with its cooldowns announced to every
 * instance (NF-6: {@code cooldown.shared.SharedConnectionCooldowns}, a decorator beside its board
 * that hears the local one's transitions through its {@link CooldownListener}).
 */
public interface ConnectionCooldowns extends Mechanism {

    /** CC-4: the flat cooldown of a concurrency-limited 429 without a hint. */
    long CONCURRENCY_LIMIT_COOLDOWN_MS = FailureClassifier.CONCURRENCY_LIMIT_COOLDOWN_MS;
    /** CC-6: OAuth expiry retries before the connection becomes terminal {@code expired}. */
    int EXPIRED_RETRY_MAX = 3;
    /** CC-6: the window in which three {@code request_rejected} answers make a connection {@code banned}. */
    long REQUEST_REJECTED_WINDOW_MS = 3_600_000;
    /** CC-6: cooldowns of the first and second {@code request_rejected} answer. */
    long[] REQUEST_REJECTED_COOLDOWNS_MS = {300_000, 900_000};
    /** CC-6: the answer that turns a request-rejected streak into a ban. */
    int REQUEST_REJECTED_BAN_AT = 3;

    /** Terminal states (CC-6). */
    Set<String> TERMINAL = Arrays.stream(ConnectionStatus.Kind.values())
            .map(ConnectionStatus.Kind::wireName).collect(Collectors.toUnmodifiableSet());

    /**
     * One instance's connection cooldowns, telling nobody ({@link CooldownListener#NONE}) until
     * something {@link #listen}s.
     *
     * @param store the connections (state is written through it)
     * @param clock the clock
     * @param settings the live settings
     * @return the mechanism
     */
    static ConnectionCooldowns local(ConnectionStore store, InstantSource clock, Supplier<ResilienceSettings> settings) {
        return new LocalConnectionCooldowns(store, clock, settings);
    }

    /**
     * What a failure did to a connection.
     *
     * @param cooledMs the cooldown set now (0 when none was set)
     * @param testStatus the connection's status afterwards
     * @param absorbed true when an active cooldown of the same burst absorbed it (CC-3)
     */
    record Outcome(long cooledMs, String testStatus, boolean absorbed) {
        static final Outcome NONE = new Outcome(0, ConnectionStatus.ACTIVE.wireName(), false);
    }

    /**
     * Whether a status is terminal.
     *
     * @param testStatus the status
     * @return true for {@code banned}, {@code expired}, {@code credits_exhausted}
     */
    static boolean isTerminal(String testStatus) {
        return TERMINAL.contains(testStatus);
    }

    /**
     * CC-2: the cooldown at a backoff level.
     *
     * @param p the class profile
     * @param level the connection's backoff level
     * @return {@code min(base × 2^min(level, maxBackoffSteps), maxCooldownMs)}
     */
    static long backoff(CooldownProfile p, int level) {
        int exp = Math.min(Math.min(level, p.maxBackoffSteps()), 40);
        long ms = p.baseCooldownMs() > (Long.MAX_VALUE >> exp) ? Long.MAX_VALUE : p.baseCooldownMs() << exp;
        return Math.min(ms, p.maxCooldownMs());
    }

    /**
     * Sets the one listener of this mechanism's transitions, heard inside the connection's critical
     * section (a shared mode's decorator), in the manner of Resilience4j's event publisher. Set
     * once, at assembly, before the first request.
     *
     * @param listener who hears the transitions
     * @throws IllegalStateException when a listener is already set
     */
    void listen(CooldownListener listener);

    /**
     * Applies an account-level failure to a connection.
     *
     * @param connectionId the connection
     * @param verdict the failure's verdict (the caller decided it is the connection's business)
     * @param errorMessage the upstream error, secrets already scrubbed, or null
     * @param errorCode the upstream error code, or null
     * @return what happened
     */
    Outcome onFailure(String connectionId, Verdict verdict, String errorMessage, String errorCode);

    /**
     * A committed stream stalled (SPEC CC-5): the error is recorded on the connection, and the
     * connection cools only when {@code streamStallCooldown.enabled} — a stall usually belongs to
     * the request (a long reasoning phase), not the account.
     *
     * @param connectionId the connection
     * @param message what happened
     */
    void onStreamStall(String connectionId, String message);

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
    boolean coolUntil(String connectionId, long until, FailureReason reason, String lastError);

    /**
     * CC-7: a successful request clears every error field of the connection (backoff back to 0).
     * Costs nothing when the connection is already clean.
     *
     * @param c the connection as selected for the request
     */
    void onSuccess(Connection c);

    /**
     * CC-8: clears the cooldown of a connection (never a terminal state).
     *
     * @param connectionId the connection
     * @return {@code cleared}, {@code unchanged} (nothing to clear) or {@code skippedTerminal}
     */
    ClearResult clear(String connectionId);

    /**
     * Issue 27: brings a terminal connection ({@code banned}, {@code expired},
     * {@code credits_exhausted}) back to {@code active} once the operator has dealt with the cause
     * (credit refilled, account restored) without new credentials. Like new credentials, it forgets
     * the status rather than moving it (there is no legal move out of a terminal status).
     *
     * @param connectionId the connection
     * @return true when it was terminal and is active now; false when it is unknown or not terminal
     */
    boolean reactivate(String connectionId);
}
