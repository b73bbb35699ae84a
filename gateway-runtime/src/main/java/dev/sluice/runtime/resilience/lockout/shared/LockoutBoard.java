package dev.sluice.runtime.resilience.lockout.shared;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import java.util.List;

/**
 * Model lockouts as every instance must see them on its very next request (SPEC NF-6, §11). The
 * lockout itself, with its failure count, escalation and decay, stays in the memory of the
 * instance that saw the failure ({@link ModelLockouts}); the board announces the lock in force (its
 * key, scope, reason and remaining time) so that a request on another instance does not send the
 * locked model to that connection. The default, {@link #NONE}, announces nothing (one instance).
 *
 * <p>A lock is named by its connection and a <em>slot</em>: {@code family:<name>},
 * {@code model:<name>}, {@code exact:<lower-cased name>} or {@code retry:<lower-cased name>}
 * ({@link SharedModelLockouts} builds them). An implementation bounds every call; when its store cannot be
 * reached, reads answer null and writes are dropped: each instance then has its own lockouts only.
 */
public interface LockoutBoard {

    /** Announces nothing; knows nothing. */
    LockoutBoard NONE = new LockoutBoard() {
        @Override
        public void locked(String connectionId, String slot, Lock lock) {
        }

        @Override
        public Lock find(String connectionId, List<String> slots) {
            return null;
        }

        @Override
        public void cleared(String connectionId, List<String> slots) {
        }

        @Override
        public void clearedConnection(String connectionId) {
        }
    };

    /**
     * A lock as announced: what {@link SharedModelLockouts} needs to block a model and list the reason.
     *
     * @param model the key model (family, base model, or lower-cased exact model)
     * @param scope {@link LockScope#MODEL} or {@link LockScope#EXACT}
     * @param reason the reason of the failure that set it
     * @param remainingMs how long from now, ms (&gt; 0)
     */
    record Lock(String model, LockScope scope, FailureReason reason, long remainingMs) {
    }

    /**
     * A connection may not serve a slot for {@code lock.remainingMs()}.
     *
     * @param connectionId the connection
     * @param slot the slot
     * @param lock the lock
     */
    void locked(String connectionId, String slot, Lock lock);

    /**
     * The announced lock on a connection that ends last among some slots.
     *
     * @param connectionId the connection
     * @param slots the slots a model maps to
     * @return the lock, or null when none is announced (or the board cannot be reached)
     */
    Lock find(String connectionId, List<String> slots);

    /**
     * Some slots of a connection were re-enabled early (an operator's clear).
     *
     * @param connectionId the connection
     * @param slots the slots
     */
    void cleared(String connectionId, List<String> slots);

    /**
     * Every lock of a connection was cleared (an operator cleared its cooldown).
     *
     * @param connectionId the connection
     */
    void clearedConnection(String connectionId);

    /** @return true when lockouts are announced to other instances */
    default boolean shared() {
        return this != NONE;
    }
}
