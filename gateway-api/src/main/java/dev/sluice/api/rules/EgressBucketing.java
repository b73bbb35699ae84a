package dev.sluice.api.rules;

import java.util.Set;

/**
 * Declares providers whose limits apply per egress IP rather than per account (SPEC EB-1): a
 * rate or quota 429 on one connection cools every connection of the same family that last left
 * through the same egress IP.
 */
public interface EgressBucketing {

    /**
     * Stable hook name.
     *
     * @return the name
     */
    String name();

    /**
     * The providers that form one family and are bucketed by egress IP by default. The operator
     * may override the list with {@code SLUICE_EGRESS_IP_LOCK_PROVIDERS}.
     *
     * @return provider ids
     */
    Set<String> providers();

    /**
     * The bucket a connection falls in, given its last known egress IP. The default buckets by
     * the IP itself.
     *
     * @param provider the connection's provider id
     * @param egressIp the last known egress IP (never null)
     * @return the bucket key; connections with equal keys share limits
     */
    default String bucketKey(String provider, String egressIp) {
        return egressIp;
    }
}
