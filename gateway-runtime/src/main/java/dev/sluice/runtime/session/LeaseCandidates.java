package dev.sluice.runtime.session;

import java.util.List;

/**
 * Which connection a lease may take for a model (SPEC SL-4, SL-5): the routing rules decide —
 * the key's allowed connections, enabled, not held back by a resilience mechanism — and another
 * owner's lease makes a connection busy, not ineligible.
 */
public interface LeaseCandidates {

    /** What the search found. */
    sealed interface Pick {
    }

    /**
     * A free eligible connection.
     *
     * @param connectionId the connection
     */
    record Free(String connectionId) implements Pick {
    }

    /**
     * Eligible connections exist, and other owners' leases hold every one of them.
     *
     * @param leased the eligible connections other owners hold
     */
    record AllLeased(List<String> leased) implements Pick {
    }

    /**
     * No eligible connection at all: not a lease conflict, the normal routing error (SL-5).
     *
     * @param modelUnknown whether no provider serves the model (else: none of its connections can serve now)
     * @param detail what the client is told
     */
    record NoneEligible(boolean modelUnknown, String detail) implements Pick {
    }

    /**
     * Finds a connection for a model.
     *
     * @param model the model as the client names it
     * @param keyId the client key id
     * @param allowedConnections the key's allowed connections (empty = all)
     * @param ownerHash the owner looking (its own lease does not make a connection busy)
     * @param only restrict the search to this connection, or null
     * @return what was found
     */
    Pick pick(String model, String keyId, java.util.Set<String> allowedConnections, String ownerHash, String only);
}
