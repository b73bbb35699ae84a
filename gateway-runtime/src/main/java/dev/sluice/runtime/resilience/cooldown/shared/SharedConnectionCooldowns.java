package dev.sluice.runtime.resilience.cooldown.shared;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ClearResult;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.cooldown.CooldownListener;
import dev.sluice.runtime.store.Connection;

/**
 * Shared mode of connection cooldown (NF-6), a decorator over one instance's mechanism that is
 * also its {@link CooldownListener}, so each step happens under the connection's lock, atomic with
 * the durable write: a failure that is about to start a cooldown claims it on the
 * {@link CooldownBoard} first (CC-3 across instances: when another instance's failure of the same
 * burst already cooled the connection, this one is absorbed and takes no second backoff step); a
 * written cooldown is announced; one that a success or a clear ended early is withdrawn. A
 * connection the board says cools is held back even while this instance's copy of its row still
 * says active (the row follows within a second). Everything else is the local mechanism's.
 */
public final class SharedConnectionCooldowns implements ConnectionCooldowns, CooldownListener {

    private final ConnectionCooldowns local;
    private final CooldownBoard board;

    private SharedConnectionCooldowns(ConnectionCooldowns local, CooldownBoard board) {
        this.local = requireNonNull(local, "local is null");
        this.board = requireNonNull(board, "board is null");
    }

    /**
     * Shares a local mechanism: the decorator becomes its listener.
     *
     * @param local this instance's connection cooldowns (without a listener yet)
     * @param board where cooldowns are claimed and announced to the other instances
     * @return the shared mechanism
     */
    public static ConnectionCooldowns over(ConnectionCooldowns local, CooldownBoard board) {
        SharedConnectionCooldowns shared = new SharedConnectionCooldowns(local, board);
        local.listen(shared);
        return shared;
    }

    // the local mechanism's transitions, heard under the connection's lock

    @Override
    public boolean mayStart(String connectionId, long cooldownMs) {
        return board.claim(connectionId, cooldownMs);
    }

    @Override
    public void cooling(String connectionId, long remainingMs) {
        board.cooled(connectionId, remainingMs);
    }

    @Override
    public void ended(String connectionId) {
        board.cleared(connectionId);
    }

    // the mechanism

    /** The local holds first; then another instance's announcement its row has not caught up with. */
    @Override
    public boolean holds(HoldCheck check) {
        if (local.holds(check)) {
            return true;
        }
        long announced = board.remainingMs(check.connection().id());
        return announced > 0 && check.hold(Exclusion.Reason.UNAVAILABLE, announced);
    }

    @Override
    public long providerHeldMs(String provider, ProviderClass providerClass) {
        return local.providerHeldMs(provider, providerClass);
    }

    @Override
    public void take(FailedCandidate failed) {
        local.take(failed);
    }

    @Override
    public void onFailure(FailedCandidate failed) {
        local.onFailure(failed);
    }

    @Override
    public void onSuccess(Candidate served) {
        local.onSuccess(served);
    }

    @Override
    public void onStreamStall(Candidate stalled, String message) {
        local.onStreamStall(stalled, message);
    }

    @Override
    public void onEgress(Candidate attempted, String egressIp, boolean direct) {
        local.onEgress(attempted, egressIp, direct);
    }

    @Override
    public void onClusterEvent(ClusterEvent event, long now) {
        local.onClusterEvent(event, now);
    }

    // the operations, all the local mechanism's (it tells this decorator what concerns the board)

    /** @throws IllegalStateException always: the decorator is the local mechanism's one listener */
    @Override
    public void listen(CooldownListener listener) {
        throw new IllegalStateException("shared connection cooldowns are their local mechanism's listener");
    }

    @Override
    public Outcome onFailure(String connectionId, Verdict verdict, String errorMessage, String errorCode) {
        return local.onFailure(connectionId, verdict, errorMessage, errorCode);
    }

    @Override
    public void onStreamStall(String connectionId, String message) {
        local.onStreamStall(connectionId, message);
    }

    @Override
    public boolean coolUntil(String connectionId, long until, FailureReason reason, String lastError) {
        return local.coolUntil(connectionId, until, reason, lastError);
    }

    @Override
    public void onSuccess(Connection c) {
        local.onSuccess(c);
    }

    @Override
    public ClearResult clear(String connectionId) {
        return local.clear(connectionId);
    }

    @Override
    public boolean reactivate(String connectionId) {
        return local.reactivate(connectionId);
    }
}
