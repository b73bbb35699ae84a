package dev.sluice.runtime.openai;

import dev.sluice.api.ExecutorCustomizer;
import dev.sluice.api.RequestValues;
import dev.sluice.api.UpstreamCallInfo;
import dev.sluice.api.UpstreamTarget;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A plugin's headers and query parameters computed per connection and request (issue 27,
 * {@link ExecutorCustomizer#withHeaders(RequestValues)}). The executor holds none of these unless
 * a plugin asked for them, so requests of every other provider pay nothing. Whatever the plugin's
 * function throws, or an invalid header it returns, fails that attempt as an unusable answer (the
 * attempt runner turns an executor's exception into a protocol failure): the plugin's message
 * names the problem, e.g. a connection without the setting it needs.
 */
final class PerRequestValues {

    private final List<RequestValues> headers;
    private final List<RequestValues> query;

    private PerRequestValues(List<RequestValues> headers, List<RequestValues> query) {
        this.headers = List.copyOf(headers);
        this.query = List.copyOf(query);
    }

    /** The earlier values followed by a customizer's; null when there are none at all. */
    static PerRequestValues of(PerRequestValues earlier, ExecutorCustomizer customizer) {
        List<RequestValues> h = new ArrayList<>(earlier == null ? List.of() : earlier.headers);
        List<RequestValues> q = new ArrayList<>(earlier == null ? List.of() : earlier.query);
        h.addAll(customizer.computedHeaders());
        q.addAll(customizer.queryParameters());
        return h.isEmpty() && q.isEmpty() ? null : new PerRequestValues(h, q);
    }

    /** Adds the computed headers; one of the same name, in any case, is replaced. */
    void addHeaders(Map<String, String> out, UpstreamTarget target, UpstreamCallInfo call) {
        for (RequestValues values : headers) {
            Map<String, String> computed = values.compute(target, call);
            if (computed == null) {
                continue;
            }
            computed.forEach((name, value) -> {
                if (value == null) {
                    return;
                }
                ExecutorCustomizer.checkHeader(name, value);
                out.keySet().removeIf(name::equalsIgnoreCase);
                out.put(name, value);
            });
        }
    }

    /** RFC 3986 percent-encoding: a space is %20 in a query, not the form encoding's '+'. */
    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The endpoint with the computed query parameters appended, URL-encoded. */
    URI endpoint(URI base, UpstreamTarget target, UpstreamCallInfo call) {
        if (query.isEmpty()) {
            return base;
        }
        StringBuilder q = new StringBuilder();
        for (RequestValues values : query) {
            Map<String, String> computed = values.compute(target, call);
            if (computed == null) {
                continue;
            }
            computed.forEach((name, value) -> {
                if (name == null || value == null) {
                    return;
                }
                q.append(q.isEmpty() ? "" : "&").append(encode(name)).append('=').append(encode(value));
            });
        }
        if (q.isEmpty()) {
            return base;
        }
        String s = base.toString();
        return URI.create(s + (s.indexOf('?') >= 0 ? "&" : "?") + q);
    }
}
