package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.session.LeaseCandidates;
import dev.sluice.runtime.session.LeaseOwner;
import dev.sluice.runtime.session.Leases;
import dev.sluice.runtime.session.SessionKeys;
import dev.sluice.runtime.store.LeaseRow;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.util.function.LongSupplier;

/**
 * What ties an inference request to a connection beyond its key (SPEC §10), read from the request:
 * its session key (SA-1; only while {@code sessionAffinityTtlMs} is above 0) and, for a managed
 * request, its lease claim (SL-3): the owner token and generation headers are checked before
 * anything is routed — a stale generation is a 409 — the lease is moved when its connection cannot
 * serve the model now (SL-4), and the request is narrowed to the leased connection. Managed
 * answers carry the lease's generation in {@code X-Sluice-Lease-Generation}.
 */
final class ClientAffinity {

    private static final HeaderName OWNER = HeaderNames.create(LeaseOwner.HEADER);

    private final ObjectMapper mapper;
    private final LongSupplier ttlMs;
    private final Leases leases;
    private final LeaseCandidates candidates;

    ClientAffinity(ObjectMapper mapper, LongSupplier ttlMs, Leases leases, LeaseCandidates candidates) {
        this.mapper = mapper;
        this.ttlMs = ttlMs;
        this.leases = leases;
        this.candidates = candidates;
    }

    /**
     * The caller with its session and lease.
     *
     * @param req the request
     * @param res the response (gets the lease generation header)
     * @param caller the authenticated caller
     * @param body the request body (read for the session key)
     * @param model the requested model
     * @return the caller to route with
     */
    Caller of(ServerRequest req, ServerResponse res, Caller caller, byte[] body, String model) {
        String session = null;
        if (ttlMs.getAsLong() > 0) {
            session = SessionKeys.of(name -> header(req, name), tree(body));
        }
        // issue 26: most requests carry no lease owner; the header is looked up by a name made once
        String owner = header(req, OWNER);
        if (owner == null) {
            return session == null ? caller : caller.withAffinity(new Caller.Affinity(session, null, 0));
        }
        if (!LeaseOwner.valid(owner)) {
            throw LeaseErrors.ownerInvalid();
        }
        long generation = generation(header(req, LeaseOwner.GENERATION_HEADER));
        String ownerHash = LeaseOwner.hash(owner);
        LeaseRow lease = switch (leases.claim(ownerHash, caller.keyId(), generation)) {
            case Leases.Held h -> h.lease();
            case Leases.Stale s -> throw LeaseErrors.stale(s.why());
            default -> throw LeaseErrors.fenceStale();
        };
        switch (leases.keepServable(lease, model, caller.allowedConnections(), candidates)) {
            case Leases.Held h -> lease = h.lease();
            case Leases.Capacity c -> throw LeaseErrors.capacity(c);
            case Leases.Stale s -> throw LeaseErrors.stale(s.why());
            // no connection can serve the model at all: the request gets the routing error on its own lease
            case Leases.Ineligible i -> { }
            case Leases.Ended e -> throw LeaseErrors.fenceStale();
        }
        res.header(HeaderNames.create(LeaseOwner.GENERATION_HEADER), String.valueOf(lease.generation()));
        return caller.pinnedTo(lease.connectionId()).withAffinity(new Caller.Affinity(session, ownerHash, lease.generation()));
    }

    private JsonNode tree(byte[] body) {
        try {
            return body.length == 0 ? null : mapper.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static String header(ServerRequest req, String name) {
        return header(req, HeaderNames.create(name));
    }

    private static String header(ServerRequest req, HeaderName name) {
        if (!req.headers().contains(name)) {
            return null;
        }
        String value = req.headers().get(name).get().strip();
        return value.isEmpty() ? null : value;
    }

    private static long generation(String value) {
        if (value == null) {
            throw LeaseErrors.generationInvalid();
        }
        try {
            long g = Long.parseLong(value);
            if (g < 1) {
                throw LeaseErrors.generationInvalid();
            }
            return g;
        } catch (NumberFormatException e) {
            throw LeaseErrors.generationInvalid();
        }
    }
}
