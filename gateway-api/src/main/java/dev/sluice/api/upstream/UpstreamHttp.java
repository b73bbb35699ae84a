package dev.sluice.api.upstream;

import java.io.IOException;

/**
 * The runtime's HTTP client for upstream calls (keep-alive connection pooling, TCP_NODELAY,
 * bounded timeouts). Thread-safe; blocking.
 */
public interface UpstreamHttp {

    /**
     * Sends a request and returns once the response status and headers arrived; the body is read
     * from the returned response, which the caller must close.
     *
     * @param request the request
     * @return the response
     * @throws IOException on a transport failure (refused, reset, timeout, DNS); see
     *     {@link TransportError#of(IOException)} to turn it into a failure value
     */
    UpstreamResponse send(UpstreamRequest request) throws IOException;
}
