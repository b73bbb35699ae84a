package dev.sluice.api.upstream;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * An upstream HTTP request, built from scratch by an executor (SPEC SEC-5: no client header is
 * forwarded unless the executor adds it on purpose).
 *
 * @param method HTTP method, e.g. {@code POST}
 * @param uri absolute http(s) URI
 * @param headers request headers (one value each)
 * @param body request body (not copied; do not modify after building), empty for none
 * @param timeout bound on connecting and receiving the response headers
 */
public record UpstreamRequest(String method, URI uri, Map<String, String> headers, byte[] body, Duration timeout) {

    /** Validates the fields and copies the headers. */
    public UpstreamRequest {
        requireNonNull(method, "method is null");
        requireNonNull(uri, "uri is null");
        requireNonNull(timeout, "timeout is null");
        headers = Map.copyOf(requireNonNull(headers, "headers is null"));
        body = body == null ? new byte[0] : body;
    }

    /** Never shows header values: they may hold credentials. */
    @Override
    public String toString() {
        return "UpstreamRequest[" + method + " " + uri + ", headers=" + headers.keySet() + ", body=" + body.length + " bytes]";
    }
}
