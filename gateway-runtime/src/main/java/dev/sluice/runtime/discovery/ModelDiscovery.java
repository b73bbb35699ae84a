package dev.sluice.runtime.discovery;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.store.ChangeFeed;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.JdbcDiscoveredModels;
import dev.sluice.runtime.upstream.EgressRoute;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reads the model list of every enabled connection whose provider discovers its models
 * ({@link dev.sluice.api.ProviderDescriptor#discoversModels()}: built-in {@code openai}, custom
 * providers, plugins that say so) on creation, on demand ({@code POST /api/providers/{id}/test})
 * and every {@code upstream.modelDiscoveryIntervalMs}; 0 turns it off. At most one discovery at a
 * time runs per connection, and at most {@link #THREADS} at once, on platform threads of their own:
 * reading a large model list (up to {@code upstream.maxAnswerBytes}) from an upstream that sends it
 * as fast as it can never blocks, and a virtual thread that never blocks keeps its carrier — with
 * the one carrier of a 2-CPU host (issue 26) that held every client connection for seconds, up to
 * the admin call that had just started the discovery. The answer's ids are kept here (read by
 * {@code GET /v1/models} without any I/O) and in the connection's row. A failure keeps the last
 * list and records why.
 */
public final class ModelDiscovery implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ModelDiscovery.class.getName());

    private final ConnectionStore connections;
    private final ProviderCatalog catalog;
    private final Function<EgressRoute, UpstreamHttp> routes;
    private final JdbcDiscoveredModels store;
    private final StoredDiscovery stored;
    private final ModelsEndpoint endpoint;
    private final InstantSource clock;
    private final Duration interval;
    private final Map<String, DiscoveredModels> known = new ConcurrentHashMap<>();
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    /** The most discoveries running at once; more wait their turn (a slow upstream holds one for its timeout at most). */
    static final int THREADS = 4;

    private final ExecutorService workers = workers();
    private volatile ScheduledExecutorService ticker;

    /**
     * Creates the discovery (nothing runs until {@link #start}).
     *
     * @param connections the connections
     * @param catalog the providers
     * @param routes the upstream client of each egress route
     * @param store where discoveries are kept with their connection
     * @param mapper JSON
     * @param clock the clock
     * @param interval {@code upstream.modelDiscoveryIntervalMs}; zero turns discovery off
     * @param timeout bound on the answer's headers and body ({@code upstream.headersTimeoutMs})
     */
    public ModelDiscovery(ConnectionStore connections, ProviderCatalog catalog, Function<EgressRoute, UpstreamHttp> routes,
            JdbcDiscoveredModels store, ObjectMapper mapper, InstantSource clock, Duration interval, Duration timeout) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("upstream.modelDiscoveryIntervalMs must be 0 (off) or positive");
        }
        this.connections = connections;
        this.catalog = catalog;
        this.routes = routes;
        this.store = store;
        this.stored = new StoredDiscovery(mapper);
        this.endpoint = new ModelsEndpoint(mapper, timeout);
        this.clock = clock;
        this.interval = interval;
    }

    /**
     * Unless off: loads what earlier runs (or other instances) found, follows other instances'
     * discoveries, and discovers every connection now and then every interval on one daemon
     * thread. Off, it lists nothing discovered, stored or not.
     *
     * @param feed change notifications of the shared database, or null
     * @return this
     */
    public ModelDiscovery start(ChangeFeed feed) {
        if (!enabled()) {
            // off means nothing discovered is listed, not even what an earlier run stored
            return this;
        }
        store.all().forEach(this::adopt);
        if (feed != null) {
            store.follow(feed, this::adopt);
        }
        ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread th = new Thread(r, "sluice-model-discovery");
            th.setDaemon(true);
            return th;
        });
        t.scheduleWithFixedDelay(this::discoverAll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        ticker = t;
        return this;
    }

    /** @return whether discovery runs at all ({@code upstream.modelDiscoveryIntervalMs} > 0) */
    public boolean enabled() {
        return !interval.isZero();
    }

    /**
     * Starts a discovery of one connection in the background; returns at once.
     *
     * @param connectionId the connection
     * @return whether one was started or is already running (false: off, unknown, disabled, or
     *     its provider does not discover models)
     */
    public boolean discover(String connectionId) {
        Optional<Connection> c = connections.find(connectionId);
        if (!enabled() || c.isEmpty() || provider(c.get()).isEmpty()) {
            return false;
        }
        if (running.add(connectionId)) {
            try {
                workers.execute(() -> {
                    try {
                        discoverNow(c.get());
                    } finally {
                        running.remove(connectionId);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                running.remove(connectionId);
                return false;
            }
        }
        return true;
    }

    /** Daemon platform threads, the OS's to time-slice against the carriers that serve clients; idle ones end. */
    private static ExecutorService workers() {
        java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(), Thread.ofPlatform().name("sluice-model-discovery-", 0).daemon().factory());
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Starts a discovery of every eligible connection (the interval's run). */
    void discoverAll() {
        try {
            List<Connection> all = connections.list();
            // a deleted connection's list goes with it
            known.keySet().removeIf(id -> all.stream().noneMatch(c -> c.id().equals(id)));
            all.forEach(c -> discover(c.id()));
        } catch (RuntimeException e) {
            // the ticker must live on: a throwing run would cancel every later one
            LOG.log(System.Logger.Level.WARNING, "model discovery run failed: " + e.getMessage());
        }
    }

    /**
     * Discovers one connection on the calling thread (the workers', or a test's).
     *
     * @param c the connection
     * @return the discovery kept, or empty when the connection's provider does not discover
     */
    Optional<DiscoveredModels> discoverNow(Connection c) {
        Optional<Provider> p = provider(c);
        if (p.isEmpty()) {
            return Optional.empty();
        }
        String baseUrl = c.baseUrl() != null ? c.baseUrl() : p.get().descriptor().defaultBaseUrl();
        DiscoveredModels last = known.get(c.id());
        DiscoveredModels next;
        try {
            List<String> ids = endpoint.read(routes.apply(EgressRoute.of(c.localAddress(), c.proxyUrl())), baseUrl, bearer(c));
            next = new DiscoveredModels(ids, clock.millis(), null);
        } catch (IOException e) {
            next = DiscoveredModels.failed(last, clock.millis(), "GET /models failed: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        } catch (ModelsEndpoint.DiscoveryException e) {
            next = DiscoveredModels.failed(last, clock.millis(), e.getMessage());
        } catch (RuntimeException e) {
            next = DiscoveredModels.failed(last, clock.millis(), "GET /models failed: " + e.getClass().getSimpleName());
        }
        known.put(c.id(), next);
        try {
            if (!store.save(c.id(), stored.write(next))) {
                known.remove(c.id());
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "model discovery of connection " + c.id() + " not stored: " + e.getMessage());
        }
        if (next.error() != null) {
            LOG.log(System.Logger.Level.INFO, "model discovery of connection " + c.id() + " failed: " + next.error()
                    + "; its last list (" + next.ids().size() + " models) stays");
        }
        return Optional.of(next);
    }

    /**
     * The ids one connection's upstream listed (no I/O: the request path reads this).
     *
     * @param connectionId the connection
     * @return the ids, empty when none are known
     */
    public List<String> ids(String connectionId) {
        DiscoveredModels d = known.get(connectionId);
        return d == null ? List.of() : d.ids();
    }

    /**
     * One connection's last discovery.
     *
     * @param connectionId the connection
     * @return it, or empty when none ran
     */
    public Optional<DiscoveredModels> status(String connectionId) {
        return Optional.ofNullable(known.get(connectionId));
    }

    /** Another instance's discovery, or a stored one at start-up. */
    private void adopt(String connectionId, String text) {
        Optional<DiscoveredModels> d = stored.read(text);
        if (d.isPresent()) {
            known.put(connectionId, d.get());
        } else {
            known.remove(connectionId);
        }
    }

    /** The provider, when the connection is enabled and its provider discovers models. */
    private Optional<Provider> provider(Connection c) {
        if (!c.enabled()) {
            return Optional.empty();
        }
        return catalog.find(c.provider()).filter(p -> p.descriptor().discoversModels());
    }

    private static String bearer(Connection c) {
        return switch (c.authType()) {
            case APIKEY -> c.apiKey();
            case OAUTH -> c.oauth() == null ? null : c.oauth().accessToken();
            default -> null;
        };
    }

    @Override
    public void close() {
        ScheduledExecutorService t = ticker;
        if (t != null) {
            t.shutdownNow();
        }
        workers.shutdownNow();
    }
}
