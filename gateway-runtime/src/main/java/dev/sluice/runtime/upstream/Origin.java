package dev.sluice.runtime.upstream;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;

/**
 * Where a connection goes: scheme, host and port of a request's URI, the key of the keep-alive
 * pool. Its hash is computed once, from strings whose own hashes the JVM caches.
 *
 * @param tls whether the scheme is {@code https}
 * @param host the URI's host as written ({@code [::1]} for an IPv6 literal)
 * @param port the port, the scheme's default when the URI names none
 */
record Origin(boolean tls, String host, int port) {

    /**
     * The origin of a request's URI.
     *
     * @param uri an absolute {@code http} or {@code https} URI
     * @return its origin
     * @throws IOException when the URI is not an absolute http(s) URI with a host
     */
    static Origin of(URI uri) throws IOException {
        String scheme = uri.getScheme();
        boolean tls;
        if ("https".equalsIgnoreCase(scheme)) {
            tls = true;
        } else if ("http".equalsIgnoreCase(scheme)) {
            tls = false;
        } else {
            throw new MalformedURLException("not an http(s) URI: scheme " + scheme);
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new MalformedURLException("the upstream URI has no host");
        }
        return new Origin(tls, host, uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80);
    }

    /** @return the host to connect to and to name in TLS: without the brackets of an IPv6 literal */
    String bareHost() {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}
