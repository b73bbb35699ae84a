package dev.sluice.api;

import java.util.Map;

/**
 * Headers or query parameters computed for each upstream request from the connection and the
 * request (issue 27), e.g. an organisation id each connection keeps in its provider-specific
 * settings: {@code (target, call) -> Map.of("X-Zenith-Org", target.setting("org"))}. Runs on
 * request threads for every request of the executor it customises: it must be thread-safe, fast
 * and free of I/O. An exception or an invalid name or value fails that attempt as an unusable
 * answer (the next connection is tried); null values are left out.
 */
@FunctionalInterface
public interface RequestValues {

    /**
     * The values for one upstream request.
     *
     * @param target the connection the request goes to
     * @param call what is sent
     * @return name to value; null or empty for none
     */
    Map<String, String> compute(UpstreamTarget target, UpstreamCallInfo call);
}
