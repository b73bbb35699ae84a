package dev.sluice.runtime.http;

import dev.sluice.runtime.session.Leases;
import dev.sluice.runtime.session.LeaseOwner;
import java.util.Map;

/** The errors of exclusive session leases (SPEC SL-2, SL-3, SL-5), in the OpenAI envelope. */
final class LeaseErrors {

    private LeaseErrors() {
    }

    /** 409: the claimed generation is not the owner's active lease (nothing was sent upstream). */
    static ApiException fenceStale() {
        return stale("The lease generation is stale: the lease was released, expired or moved. Acquire it again.");
    }

    static ApiException stale(String message) {
        return new ApiException(409, "invalid_request_error", "LEASE_FENCE_STALE", message, null, Map.of());
    }

    /** 429: every eligible connection is held by other owners' leases. */
    static ApiException capacity(Leases.Capacity c) {
        return new ApiException(429, "rate_limit_error", "LEASE_CAPACITY_UNAVAILABLE",
                "Every eligible connection is held by another owner's lease; retry after " + c.retryAfterSeconds() + " s.", null,
                Map.of("Retry-After", String.valueOf(c.retryAfterSeconds())),
                Map.of("state", "WAITING_FOR_CAPACITY", "reason", "NO_FREE_ELIGIBLE_CONNECTION", "retryAfter", c.retryAfterSeconds()))
                .withDetailsAtTop();
    }

    static ApiException ownerRequired() {
        return new ApiException(400, "invalid_request_error", "LEASE_CONTEXT_REQUIRED",
                "Missing header " + LeaseOwner.HEADER + ": send the owner token you chose (vlo_ and 43 base64url characters).",
                LeaseOwner.HEADER, Map.of());
    }

    static ApiException ownerInvalid() {
        return new ApiException(400, "invalid_request_error", "LEASE_CONTEXT_INVALID",
                "Header " + LeaseOwner.HEADER + " must be vlo_ followed by 43 base64url characters (A-Z a-z 0-9 _ -).",
                LeaseOwner.HEADER, Map.of());
    }

    static ApiException generationInvalid() {
        return new ApiException(400, "invalid_request_error", "LEASE_CONTEXT_INVALID",
                "A managed request needs header " + LeaseOwner.GENERATION_HEADER + " with the lease generation (a positive integer).",
                LeaseOwner.GENERATION_HEADER, Map.of());
    }
}
