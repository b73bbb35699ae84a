package dev.sluice.runtime.resilience.lockout;

/**
 * Hears what one instance's lockout table does to a lock, on the thread that did it, right after
 * the key's write (registered with {@link ModelLockouts#listen}). The table does not know who
 * listens; shared mode (NF-6) announces and withdraws the locks here. A listener is called on the
 * failure and success paths, so it returns quickly and throws nothing.
 */
public interface LockoutListener {

    /** Hears nothing. */
    LockoutListener NONE = new LockoutListener() {
    };

    /**
     * A failure (or a RetryInfo delay) left a lock in force on its key: a new lock, a longer one,
     * or the lock already in force that absorbed the failure.
     *
     * @param kind the namespace of the lock's key model
     * @param lock the lock in force ({@code lock.expiresAt() > now})
     * @param now the time of the write, epoch ms
     */
    default void inForce(LockoutKind kind, ModelLockout lock, long now) {
    }

    /**
     * A success's decay (ML-3) deleted a lock before its timer ran out.
     *
     * @param kind the namespace of the lock's key model
     * @param lock the deleted lock ({@code lock.expiresAt() > now})
     * @param now the time of the success, epoch ms
     */
    default void endedEarly(LockoutKind kind, ModelLockout lock, long now) {
    }
}
