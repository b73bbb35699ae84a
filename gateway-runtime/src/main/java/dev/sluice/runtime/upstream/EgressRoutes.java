package dev.sluice.runtime.upstream;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * The outbound routes of connections (SPEC §16.3). {@link #route(EgressRoute)} hands an attempt
 * the client of its connection's route ({@code java.net.http}, bound to the route's local address
 * and/or through its HTTP proxy, one cached client per route; the direct route is the default
 * client), and the attempt passes it to its executor explicitly ({@code UpstreamTarget.http}). As
 * an {@link UpstreamHttp} itself, this is the default client: what {@code HostContext.http()}
 * gives plugins for sends that belong to no attempt.
 *
 * <p>It also knows each route's egress IP (EB-2, best effort, see {@link #egressIp}).
 *
 * <p>Known limits: only {@code http://} proxies ({@code https://} and {@code socks5://} proxy URLs
 * fail the attempt rather than go out directly); a bound local address behind NAT is a stand-in
 * for the public IP it maps to; a probed IP is up to {@link #EGRESS_IP_TTL} old, and the
 * {@code proxy_logs} history built from it lags a proxy's own change of address (EB-5).
 *
 * <p>Thread-safe. {@link #close()} closes every route client (not the default client, which the
 * caller owns).
 */
public final class EgressRoutes implements UpstreamHttp, AutoCloseable {

    /** How long a probed egress IP is trusted (OmniRoute's egress-IP cache TTL). */
    public static final Duration EGRESS_IP_TTL = Duration.ofMinutes(5);
    /** After a failed probe the route's egress IP is unknown for this long before the next probe. */
    public static final Duration PROBE_RETRY_AFTER_FAILURE = Duration.ofMinutes(1);
    /** Bound on the probe's connect and response headers. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);
    /** The most a probe answer may hold (an IPv6 literal with a zone fits easily). */
    static final int PROBE_MAX_BYTES = 256;
    /** How long {@link #close()} lets route requests in flight finish before aborting them. */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    private static final System.Logger LOG = System.getLogger(EgressRoutes.class.getName());

    private final UpstreamHttp defaultClient;
    private final Function<EgressRoute, JdkUpstreamHttp> clientFactory;
    private final URI probeUrl;
    private final InstantSource clock;
    private final ExecutorService probeExecutor;
    private final Map<EgressRoute, JdkUpstreamHttp> clients = new ConcurrentHashMap<>();
    private final Map<EgressRoute, Probe> probes = new ConcurrentHashMap<>();
    private final Set<EgressRoute> probing = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** The connect timeout of every client here (issue 32), ms; 0 when not known (tests). */
    private long connectTimeoutMs;

    EgressRoutes(UpstreamHttp defaultClient, Function<EgressRoute, JdkUpstreamHttp> clientFactory, URI probeUrl,
            InstantSource clock, ExecutorService probeExecutor) {
        this.defaultClient = requireNonNull(defaultClient, "defaultClient is null");
        this.clientFactory = requireNonNull(clientFactory, "clientFactory is null");
        this.probeUrl = probeUrl;
        this.clock = requireNonNull(clock, "clock is null");
        this.probeExecutor = requireNonNull(probeExecutor, "probeExecutor is null");
    }

    /**
     * Creates the routes. Also clears {@code jdk.http.auth.tunneling.disabledSchemes} when it is
     * unset, so that a proxy URL's Basic credentials reach the proxy on {@code CONNECT} too (the
     * JDK reads it once, when {@code java.net.http} first initialises; pass
     * {@code -Djdk.http.auth.tunneling.disabledSchemes=} at launch to be independent of that).
     *
     * @param defaultClient the client of connections without a route (Helidon WebClient)
     * @param connectTimeout connect timeout of the route clients
     * @param egressProbeUrl URL that answers the caller's public IP as text
     *     ({@code upstream.egressProbeUrl}), or null to learn egress IPs only from bound addresses
     * @param clock the clock of the egress-IP cache
     * @return the routes
     */
    public static EgressRoutes create(UpstreamHttp defaultClient, Duration connectTimeout, URI egressProbeUrl,
            InstantSource clock) {
        return create(defaultClient, connectTimeout, egressProbeUrl, clock, dev.sluice.runtime.io.AnswerBuffers.DEFAULTS);
    }

    /**
     * The routes, their clients reading answers within the given memory bounds.
     *
     * @param defaultClient the client of connections without a route (Helidon WebClient)
     * @param connectTimeout connect timeout of the route clients
     * @param egressProbeUrl URL that answers the caller's public IP as text, or null
     * @param clock the clock of the egress-IP cache
     * @param buffers the bounds of whole answers and stream events (issue 19), shared with the default client
     * @return the routes
     */
    public static EgressRoutes create(UpstreamHttp defaultClient, Duration connectTimeout, URI egressProbeUrl,
            InstantSource clock, dev.sluice.runtime.io.AnswerBuffers buffers) {
        requireNonNull(connectTimeout, "connectTimeout is null");
        if (System.getProperty(JdkUpstreamHttp.TUNNELING_DISABLED_SCHEMES) == null) {
            System.setProperty(JdkUpstreamHttp.TUNNELING_DISABLED_SCHEMES, "");
        }
        EgressRoutes routes = new EgressRoutes(defaultClient, route -> new JdkUpstreamHttp(route, connectTimeout, null, buffers), egressProbeUrl,
                clock, Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-egress-probe-", 0).factory()));
        routes.connectTimeoutMs = connectTimeout.toMillis();
        return routes;
    }

    /**
     * The connect timeout of every route's client ({@code upstream.connectTimeoutMs}): a connect
     * that did not complete within it is the gateway's own timer (issue 32).
     *
     * @return the timeout, ms; 0 when not known
     */
    public long connectTimeoutMs() {
        return connectTimeoutMs;
    }

    /**
     * The client of a route: every send through it goes out through the route (the direct route:
     * the default client). Starts a background refresh of the route's egress IP when a probe is
     * configured and the cached one is missing or expired, so that it is usually known by the time
     * the attempt is logged. A route whose local address or proxy URL is unusable fails each send,
     * as an {@link IOException} (a transport failure of that connection), and is never sent
     * directly instead.
     *
     * @param route the route
     * @return the route's client
     */
    public UpstreamHttp route(EgressRoute route) {
        requireNonNull(route, "route is null");
        if (needsProbe(route)) {
            probeIfStale(route, clock.millis());
        }
        if (route.isDirect()) {
            return defaultClient;
        }
        return request -> sendVia(client(route), route, request);
    }

    /** Sends through the default client (the direct route). */
    @Override
    public UpstreamResponse send(UpstreamRequest request) throws IOException {
        return defaultClient.send(request);
    }

    /**
     * Sends through a route's client; when {@link #retain} let that client go between the lookup
     * and the send, through the route's new client instead (the request is not the connection's
     * failure).
     */
    UpstreamResponse sendVia(JdkUpstreamHttp client, EgressRoute route, UpstreamRequest request) throws IOException {
        try {
            return client.send(request);
        } catch (IOException e) {
            if (!client.isShutDown() || closed) {
                throw e;
            }
            return client(route).send(request);
        }
    }

    private UpstreamHttp clientFor(EgressRoute route) throws IOException {
        return route.isDirect() ? defaultClient : client(route);
    }

    private JdkUpstreamHttp client(EgressRoute route) throws IOException {
        if (closed) {
            throw new IOException("upstream clients are closed");
        }
        JdkUpstreamHttp client;
        try {
            client = clients.computeIfAbsent(route, clientFactory);
        } catch (IllegalArgumentException e) {
            throw new IOException("unusable egress route " + route + ": " + e.getMessage(), e);
        }
        if (closed && clients.remove(route, client)) {
            // close() ran while this client was being built
            client.shutdownNow();
            throw new IOException("upstream clients are closed");
        }
        return client;
    }

    /**
     * The egress IP of a route (EB-2, best effort), as {@link InetAddress#getHostAddress()} text:
     * <ul>
     *   <li>a route with a local address and no proxy: that address, without any network call;</li>
     *   <li>otherwise (a proxy, or the direct route), when {@code upstream.egressProbeUrl} is set:
     *       the probe's last answer fetched through the route, cached {@link #EGRESS_IP_TTL}; a
     *       failed probe leaves it unknown for {@link #PROBE_RETRY_AFTER_FAILURE};</li>
     *   <li>else null.</li>
     * </ul>
     * Never blocks on the network: a missing or expired value starts one background probe per
     * route (never two at once) and the call returns what is known now (null at first, the
     * previous value while a refresh runs).
     *
     * @param route the route
     * @return the IP, or null if unknown
     */
    public String egressIp(EgressRoute route) {
        requireNonNull(route, "route is null");
        if (route.proxyUrl() == null && route.localAddress() != null) {
            // behind a proxy the upstream sees the proxy's address, so the bound one only counts without
            InetAddress local = IpLiterals.parse(route.localAddress());
            return local == null ? null : local.getHostAddress();
        }
        if (probeUrl == null) {
            return null;
        }
        Probe p = probeIfStale(route, clock.millis());
        return p == null ? null : p.ip();
    }

    private boolean needsProbe(EgressRoute route) {
        return probeUrl != null && (route.proxyUrl() != null || route.localAddress() == null);
    }

    /** Starts a probe when the cached answer is missing or expired; returns the (possibly just refreshed) answer. */
    private Probe probeIfStale(EgressRoute route, long now) {
        Probe p = probes.get(route);
        if ((p == null || now >= p.expiresAtMillis()) && !closed && probing.add(route)) {
            try {
                probeExecutor.execute(() -> {
                    try {
                        probes.put(route, probe(route));
                    } finally {
                        probing.remove(route);
                    }
                });
            } catch (RejectedExecutionException e) {
                probing.remove(route);
            }
            p = probes.get(route);
        }
        return p;
    }

    private Probe probe(EgressRoute route) {
        String failure;
        try (UpstreamResponse r = clientFor(route).send(new UpstreamRequest("GET", probeUrl,
                Map.of("Accept", "text/plain"), null, PROBE_TIMEOUT))) {
            int status = r.head().status();
            String text = r.bodyText(PROBE_MAX_BYTES + 1);
            InetAddress ip = text.length() > PROBE_MAX_BYTES ? null : IpLiterals.parse(text.strip());
            if (status / 100 == 2 && ip != null) {
                return new Probe(ip.getHostAddress(), clock.millis() + EGRESS_IP_TTL.toMillis());
            }
            failure = status / 100 != 2 ? "HTTP " + status : "the answer is not an IP address";
        } catch (IOException | RuntimeException e) {
            failure = e.toString();
        }
        LOG.log(System.Logger.Level.DEBUG, "egress probe through {0} failed: {1}", route, failure);
        return new Probe(null, clock.millis() + PROBE_RETRY_AFTER_FAILURE.toMillis());
    }

    /**
     * Closes every route client: requests in flight get {@link #CLOSE_GRACE} to end, then are
     * aborted. Stops the probes. The default client is left open. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        probeExecutor.shutdownNow();
        List<JdkUpstreamHttp> all = List.copyOf(clients.values());
        clients.clear();
        all.forEach(JdkUpstreamHttp::shutdown);
        long deadline = System.nanoTime() + CLOSE_GRACE.toNanos();
        boolean interrupted = false;
        for (JdkUpstreamHttp c : all) {
            try {
                if (!interrupted) {
                    c.awaitTermination(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
            c.shutdownNow();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Lets go of the clients (and probe results) of routes no connection uses any more — a
     * connection deleted, or its {@code localAddress} / {@code proxyUrl} changed (a rotated proxy
     * credential is a new route). Each is shut down gracefully: requests in flight on it finish,
     * then its threads end. A route asked for again later gets a new client.
     *
     * @param inUse the routes of the current connections
     * @return how many clients were let go
     */
    public int retain(Set<EgressRoute> inUse) {
        int released = 0;
        for (EgressRoute route : List.copyOf(clients.keySet())) {
            if (inUse.contains(route)) {
                continue;
            }
            JdkUpstreamHttp client = clients.remove(route);
            if (client != null) {
                client.shutdown();
                released++;
            }
        }
        probes.keySet().removeIf(r -> !inUse.contains(r));
        return released;
    }

    /** The current client of a route, if built (for tests). */
    JdkUpstreamHttp clientOf(EgressRoute route) {
        return clients.get(route);
    }

    /** Number of route clients built so far (for tests). */
    int clientCount() {
        return clients.size();
    }

    /**
     * One probe's answer.
     *
     * @param ip the egress IP, or null when the probe failed
     * @param expiresAtMillis when to probe again
     */
    private record Probe(String ip, long expiresAtMillis) {
    }
}
