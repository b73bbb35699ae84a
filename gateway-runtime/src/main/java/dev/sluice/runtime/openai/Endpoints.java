package dev.sluice.runtime.openai;

import java.net.URI;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The URIs of an upstream's endpoints, parsed once per (base URL, path) instead of per request
 * (issue 26: {@code URI.create} was the OpenAI-compatible executor's largest own cost in the c64
 * profile, 4 % of the request threads' samples). Bounded: past {@value #MAX} entries (base URLs
 * edited many times over) it starts again. Thread-safe.
 */
final class Endpoints {

    /** The most cached URIs; a gateway has as many as its connections' distinct base URLs times a few paths. */
    static final int MAX = 1024;

    private record Key(String base, String path) {
    }

    private final ConcurrentHashMap<Key, URI> uris = new ConcurrentHashMap<>();

    /**
     * The URI of a path under a base URL ({@code base} without its trailing slash, then {@code path}).
     *
     * @param base the base URL, as configured
     * @param path the path, with its leading slash
     * @return the URI
     * @throws IllegalArgumentException when the two do not make a URI
     */
    URI of(String base, String path) {
        Key key = new Key(base, path);
        URI uri = uris.get(key);
        if (uri == null) {
            uri = URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + path);
            if (uris.size() >= MAX) {
                uris.clear();
            }
            uris.put(key, uri);
        }
        return uri;
    }
}
