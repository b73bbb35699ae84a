package dev.sluice.runtime.upstream;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * How one connection reaches its upstream (SPEC §16.3): the local IP address its sockets bind and
 * the HTTP proxy they go through, each optional. A route with neither is {@link #DIRECT}: the
 * default client. The values are kept as the connection stores them; they are checked when a
 * client for the route is built, so a bad stored value fails that connection's attempt (as a
 * transport failure) instead of the request.
 *
 * @param localAddress the IP literal to bind, or null
 * @param proxyUrl the proxy, {@code http://[user:password@]host[:port]}, or null
 */
public record EgressRoute(String localAddress, String proxyUrl) {

    /** No local address, no proxy: the default client. */
    public static final EgressRoute DIRECT = new EgressRoute(null, null);

    /** Blank values become null. */
    public EgressRoute {
        localAddress = localAddress == null || localAddress.isBlank() ? null : localAddress.strip();
        proxyUrl = proxyUrl == null || proxyUrl.isBlank() ? null : proxyUrl.strip();
    }

    /**
     * The route of a connection's {@code localAddress} and {@code proxyUrl}.
     *
     * @param localAddress the IP literal to bind, or null
     * @param proxyUrl the proxy URL, or null
     * @return the route, {@link #DIRECT} when both are absent
     */
    public static EgressRoute of(String localAddress, String proxyUrl) {
        EgressRoute route = new EgressRoute(localAddress, proxyUrl);
        return route.isDirect() ? DIRECT : route;
    }

    /**
     * Whether the route is the default client's.
     *
     * @return true when neither a local address nor a proxy is set
     */
    public boolean isDirect() {
        return localAddress == null && proxyUrl == null;
    }

    /** Never shows the proxy's password or query: they may hold credentials (SEC-2). */
    @Override
    public String toString() {
        return "EgressRoute[localAddress=" + localAddress + ", proxyUrl=" + maskedProxyUrl() + "]";
    }

    private String maskedProxyUrl() {
        if (proxyUrl == null) {
            return null;
        }
        try {
            URI u = new URI(proxyUrl);
            if (u.getRawUserInfo() == null && u.getRawQuery() == null) {
                return proxyUrl;
            }
            String user = u.getRawUserInfo() == null ? "" : u.getRawUserInfo().split(":", 2)[0] + ":****@";
            return u.getScheme() + "://" + user + u.getHost() + (u.getPort() < 0 ? "" : ":" + u.getPort());
        } catch (URISyntaxException e) {
            return "(unparseable)";
        }
    }
}
