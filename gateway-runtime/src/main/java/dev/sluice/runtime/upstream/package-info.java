/**
 * The upstream HTTP clients and egress. {@link dev.sluice.runtime.upstream.SocketUpstreamHttp}
 * (HTTP/1.1 on blocking sockets: keep-alive pool, TCP_NODELAY, bounded timeouts; issue 26) is the
 * default client ({@link dev.sluice.runtime.upstream.HelidonUpstreamHttp}, on Helidon WebClient,
 * remains for tests and the plugin testkit);
 * connections with a {@code localAddress} and/or {@code proxyUrl} (SPEC §16.3) go out through a
 * {@code java.net.http} client of their {@link dev.sluice.runtime.upstream.EgressRoute}, because
 * the JDK client can bind a local address and speak to a proxy. {@link dev.sluice.runtime.upstream.EgressRoutes} is the
 * one {@code UpstreamHttp} every executor, built-in or plugin, sends through: it picks the client
 * of the route the attempt loop set on the calling thread, and knows each route's egress IP
 * (EB-2).
 */
package dev.sluice.runtime.upstream;
