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
 */
public record RecordedRequest(String method, String path, Map<String, String> headers, String body) {

    /** Validates and copies the headers. */
    public RecordedRequest {
        requireNonNull(method, "method is null");
        requireNonNull(path, "path is null");
        headers = Map.copyOf(requireNonNull(headers, "headers is null"));
        requireNonNull(body, "body is null");
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
