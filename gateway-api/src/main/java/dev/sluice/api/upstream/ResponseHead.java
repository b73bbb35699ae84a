package dev.sluice.api.upstream;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An upstream response's status and headers. Header names are lower case.
 *
 * @param status HTTP status
 * @param headers headers, names in lower case
 */
public record ResponseHead(int status, Map<String, List<String>> headers) {

    /** Copies the headers, normalising names to lower case. */
    public ResponseHead {
        Map<String, List<String>> copy = new TreeMap<>();
        if (headers != null) {
            headers.forEach((k, v) -> {
                if (k != null && v != null) {
                    copy.merge(k.toLowerCase(Locale.ROOT), List.copyOf(v), (a, b) -> {
                        var all = new java.util.ArrayList<>(a);
                        all.addAll(b);
                        return List.copyOf(all);
                    });
                }
            });
        }
        headers = Map.copyOf(copy);
    }

    /**
     * The first value of a header.
     *
     * @param name header name, any case
     * @return the value, or empty
     */
    public Optional<String> first(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }
}
