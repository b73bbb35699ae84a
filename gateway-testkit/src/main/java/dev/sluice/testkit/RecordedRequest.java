package dev.sluice.testkit;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.Map;

/**
 * A request as the {@link MockUpstream} received it.
 *
 * @param method the HTTP method, e.g. {@code POST}
 * @param path the request target as sent, including any query string, e.g. {@code /v1/chat/completions}
 * @param headers header names in lower case, each with its first value
 * @param body the body decoded as UTF-8 (de-chunked if it was sent chunked); empty if none
 * @param remoteAddress the client's IP address as text (e.g. {@code 127.0.0.2}: tells which local
 *     address the client bound), or null when unknown (a request built by hand)
 */
public record RecordedRequest(String method, String path, Map<String, String> headers, String body, String remoteAddress) {

    /** Validates and copies the headers. */
    public RecordedRequest {
        requireNonNull(method, "method is null");
        requireNonNull(path, "path is null");
        headers = Map.copyOf(requireNonNull(headers, "headers is null"));
        requireNonNull(body, "body is null");
    }

    /**
     * A request whose client address is unknown.
     *
     * @param method the HTTP method
     * @param path the request target
     * @param headers header names in lower case, each with its first value
     * @param body the body
     */
    public RecordedRequest(String method, String path, Map<String, String> headers, String body) {
        this(method, path, headers, body, null);
    }

    /**
     * The first value of a header.
     *
     * @param name the header name, any case
     * @return the value, or null if the request had no such header
     */
    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }
}
