package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

/**
 * One exclusive session lease as stored (SPEC SL-2): only the owner token's hash is kept.
 *
 * @param id row id
 * @param ownerHash SHA-256 of the owner token, hex
 * @param keyId the client key that acquired it
 * @param connectionId the connection it holds
 * @param model the model it was acquired for
 * @param generation the fencing generation
 * @param state {@code ACTIVE}, {@code RELEASED}, {@code EXPIRED} or {@code INVALIDATED}
 * @param endReason why it ended, or null while active
 * @param ttlMs its time to live, renewed by each acquire or renew
 * @param createdAt epoch ms
 * @param expiresAt epoch ms
 * @param updatedAt epoch ms
 */
public record LeaseRow(String id, String ownerHash, String keyId, String connectionId, String model, long generation,
        String state, String endReason, long ttlMs, long createdAt, long expiresAt, long updatedAt) {

    /** Validates. */
    public LeaseRow {
        requireNonNull(id, "id is null");
        requireNonNull(ownerHash, "ownerHash is null");
        requireNonNull(keyId, "keyId is null");
        requireNonNull(connectionId, "connectionId is null");
        requireNonNull(model, "model is null");
        requireNonNull(state, "state is null");
    }

    /**
     * The same lease ended.
     *
     * @param newState the end state
     * @param reason the end reason
     * @param at when
     * @return the ended row
     */
    public LeaseRow ended(String newState, String reason, long at) {
        return new LeaseRow(id, ownerHash, keyId, connectionId, model, generation, newState, reason, ttlMs, createdAt, expiresAt, at);
    }

    /**
     * The same lease renewed.
     *
     * @param newTtlMs its new time to live
     * @param at when
     * @return the renewed row
     */
    public LeaseRow renewed(long newTtlMs, long at) {
        return new LeaseRow(id, ownerHash, keyId, connectionId, model, generation, state, endReason, newTtlMs, createdAt,
                at + newTtlMs, at);
    }
}
