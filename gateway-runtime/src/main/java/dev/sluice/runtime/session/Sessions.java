package dev.sluice.runtime.session;

import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.SessionRouting;

/** The pipeline's view of session pins and exclusive leases (SPEC §10). */
public final class Sessions implements SessionRouting {

    private final SessionPins pins;
    private final Leases leases;

    /**
     * Combines the two.
     *
     * @param pins the session pins
     * @param leases the exclusive leases
     */
    public Sessions(SessionPins pins, Leases leases) {
        this.pins = pins;
        this.leases = leases;
    }

    /** @return the session pins */
    public SessionPins pins() {
        return pins;
    }

    /** @return the exclusive leases */
    public Leases leases() {
        return leases;
    }

    @Override
    public String pinned(String sessionKey, String provider) {
        return pins.pinned(sessionKey, provider);
    }

    @Override
    public void served(String sessionKey, String provider, String connectionId) {
        pins.served(sessionKey, provider, connectionId);
    }

    @Override
    public void failedOver(String connectionId) {
        pins.evict(connectionId);
    }

    @Override
    public long lastUsed(String connectionId) {
        return pins.lastUsed(connectionId);
    }

    @Override
    public boolean leasedByOther(String connectionId, String ownerHash) {
        return leases.heldByOther(connectionId, ownerHash);
    }

    @Override
    public boolean fenceHolds(Caller.Affinity affinity, String keyId, String connectionId) {
        return leases.fenceHolds(affinity.leaseOwnerHash(), affinity.leaseGeneration(), keyId, connectionId);
    }
}
