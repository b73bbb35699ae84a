/**
 * Session affinity and exclusive managed-session leases (SPEC §10): which connection a client
 * session is pinned to (SA-1…SA-3), and which owner holds a connection exclusively, fenced by
 * generation (SL-1…SL-6). Implements the routing package's {@code SessionRouting}; kept distinct
 * from the per-request permits of admission (SL-6).
 */
package dev.sluice.runtime.session;
