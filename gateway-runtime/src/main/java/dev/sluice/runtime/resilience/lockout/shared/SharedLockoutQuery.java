package dev.sluice.runtime.resilience.lockout.shared;

import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import java.time.InstantSource;
import java.util.List;

/**
 * A request's view of the lockouts of its model in shared mode (NF-6): this instance's own locks
 * first; for a connection they do not block, the locks other instances announced on the
 * {@link LockoutBoard} (its mirror of the announcements: no Redis call, issue 26).
 */
final class SharedLockoutQuery implements ModelLockouts.Query {

    private final ModelLockouts.Query local;
    private final LockoutBoard board;
    private final InstantSource clock;
    private final String provider;
    private final List<String> slots;

    SharedLockoutQuery(ModelLockouts.Query local, LockoutBoard board, InstantSource clock, String provider, List<String> slots) {
        this.local = local;
        this.board = board;
        this.clock = clock;
        this.provider = provider;
        this.slots = slots;
    }

    @Override
    public ModelLockout blocking(String connectionId) {
        ModelLockout own = local.blocking(connectionId);
        return own != null ? own : announced(connectionId, clock.millis());
    }

    @Override
    public ModelLockout blocking(String connectionId, long atMs) {
        ModelLockout own = local.blocking(connectionId, atMs);
        return own != null ? own : announced(connectionId, atMs);
    }

    private ModelLockout announced(String connectionId, long atMs) {
        LockoutBoard.Lock lock = board.find(connectionId, slots);
        if (lock == null) {
            return null;
        }
        long now = clock.millis();
        long expiresAt = now + lock.remainingMs();
        return expiresAt > atMs
                ? new ModelLockout(provider, connectionId, lock.model(), lock.scope(), lock.reason(), now, expiresAt, 1)
                : null;
    }

    @Override
    public boolean holds(HoldCheck check) {
        return ModelLockouts.Query.hold(this, check);
    }
}
