package dev.sluice.runtime.session;

import dev.sluice.runtime.store.LeaseRow;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The active leases in memory, by owner and by connection, for the hot path's checks
 * ({@link Leases#heldByOther}, {@link Leases#fenceHolds}). Published as one immutable pair so a
 * reader never sees an owner's lease without its connection's; lease changes are rare, so every
 * change copies.
 */
final class LeaseMirror {

    private record Maps(Map<String, LeaseRow> byOwner, Map<String, LeaseRow> byConnection) {
    }

    private volatile Maps maps = new Maps(Map.of(), Map.of());

    LeaseRow owned(String ownerHash) {
        return maps.byOwner().get(ownerHash);
    }

    LeaseRow onConnection(String connectionId) {
        return maps.byConnection().get(connectionId);
    }

    Collection<LeaseRow> all() {
        return maps.byOwner().values();
    }

    /** Replaces everything with the active leases as stored. */
    void replaceAll(List<LeaseRow> active) {
        Map<String, LeaseRow> owners = new HashMap<>();
        Map<String, LeaseRow> connections = new HashMap<>();
        for (LeaseRow r : active) {
            owners.put(r.ownerHash(), r);
            connections.put(r.connectionId(), r);
        }
        maps = new Maps(Map.copyOf(owners), Map.copyOf(connections));
    }

    /** Mirrors rows just written: an active row takes its owner and connection, an ended one leaves them. */
    void apply(List<LeaseRow> rows) {
        Maps m = maps;
        Map<String, LeaseRow> owners = new HashMap<>(m.byOwner());
        Map<String, LeaseRow> connections = new HashMap<>(m.byConnection());
        for (LeaseRow r : rows) {
            if (Leases.State.ACTIVE.name().equals(r.state())) {
                owners.put(r.ownerHash(), r);
                connections.put(r.connectionId(), r);
            } else {
                LeaseRow owned = owners.get(r.ownerHash());
                if (owned != null && owned.id().equals(r.id())) {
                    owners.remove(r.ownerHash());
                }
                LeaseRow held = connections.get(r.connectionId());
                if (held != null && held.id().equals(r.id())) {
                    connections.remove(r.connectionId());
                }
            }
        }
        maps = new Maps(Map.copyOf(owners), Map.copyOf(connections));
    }
}
