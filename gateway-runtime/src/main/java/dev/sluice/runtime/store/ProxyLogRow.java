package dev.sluice.runtime.store;

/**
 * One upstream attempt (SPEC DM-3 {@code proxy_logs}).
 *
 * @param timestamp epoch ms when the attempt started
 * @param requestId the gateway request id
 * @param provider provider id
 * @param connectionId connection id
 * @param model upstream model id
 * @param status upstream HTTP status, or 0 for a transport failure
 * @param latencyMs time to the upstream's response headers (or failure)
 * @param errorType failure reason, or null on success
 * @param egressIp egress IP if known, else null
 */
public record ProxyLogRow(long timestamp, String requestId, String provider, String connectionId, String model,
        int status, long latencyMs, String errorType, String egressIp) {
}
