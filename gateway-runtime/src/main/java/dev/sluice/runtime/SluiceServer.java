package dev.sluice.runtime;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.http.ClientConnections;
import dev.sluice.runtime.http.HttpApi;
import dev.sluice.runtime.http.RouteTable;
import dev.sluice.runtime.http.TransportErrors;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.resilience.engine.ClusterSync;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.ChangeFeed;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.ProxyLogStore;
import dev.sluice.runtime.store.ProxyLogWriter;
import dev.sluice.runtime.telemetry.Telemetry;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One running Sluice: wires configuration, storage, plugins, routing and the web server. Tests
 * start it in-process with their own clock and data folder.
 */
public final class SluiceServer implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SluiceServer.class.getName());
    /**
     * Server writes queued per connection: none, a request's thread writes to its socket itself
     * (issue 26). A queue of 32 put a hand-off to the connection's writer thread into every answer:
     * 17 µs of CPU per request at c1 and 2 µs at c64 (same-run quick bench), and a wake-up more
     * before each stream event reaches the client.
     */
    static final int WRITE_QUEUE_LENGTH = 0;

    private final WebServer web;
    private final StorageWiring storage;
    private final ChangeFeed feed;
    private final TelemetryWiring telemetry;
    private final PluginRegistry plugins;
    private final UpstreamWiring upstreams;
    private final RoutingWiring routing;
    private final RouteTable routes;
    private final SharedState shared;
    private final PrintStream console;

    private SluiceServer(WebServer web, StorageWiring storage, ChangeFeed feed, TelemetryWiring telemetry, PluginRegistry plugins,
            UpstreamWiring upstreams, RoutingWiring routing, RouteTable routes, SharedState shared, PrintStream console) {
        this.console = console;
        this.web = web;
        this.storage = storage;
        this.feed = feed;
        this.telemetry = telemetry;
        this.plugins = plugins;
        this.upstreams = upstreams;
        this.routing = routing;
        this.routes = routes;
        this.shared = shared;
    }

    /**
     * Starts a server and prints {@code Sluice listening on http://HOST:PORT} once it accepts requests.
     *
     * @param config the configuration
     * @param clock the clock
     * @param pluginParent the module layer plugins resolve against (the boot layer in production)
     * @param console where the ready line and a generated admin key go
     * @return the running server
     */
    public static SluiceServer start(SluiceConfig config, InstantSource clock, ModuleLayer pluginParent, PrintStream console) {
        Database db = Database.open(config.dataDir(), config.database());
        // NF-6: with SLUICE_REDIS_URL the hot state several instances must agree on is shared through Redis
        SharedState shared = SharedState.open(config.redis(), clock);
        try {
            return start(config, clock, pluginParent, console, db, shared);
        } catch (RuntimeException e) {
            shared.close();
            db.close();
            throw e;
        }
    }

    private static SluiceServer start(SluiceConfig config, InstantSource clock, ModuleLayer pluginParent, PrintStream console,
            Database db, SharedState shared) {
        ObjectMapper mapper = dev.sluice.runtime.io.JsonMappers.create().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        StorageWiring storage = StorageWiring.open(config, clock, mapper, db, console);
        UpstreamWiring upstreams = UpstreamWiring.create(config, clock);
        try {
            return start(config, clock, pluginParent, console, shared, mapper, storage, upstreams);
        } catch (RuntimeException e) {
            upstreams.close();
            throw e;
        }
    }

    /** Issue 35: the composition root reads as the list of its parts, each built from the configuration with what it needs. */
    private static SluiceServer start(SluiceConfig config, InstantSource clock, ModuleLayer pluginParent, PrintStream console,
            SharedState shared, ObjectMapper mapper, StorageWiring storage, UpstreamWiring upstreams) {
        Function<String, Map<String, Object>> parseObject = json -> parseObject(mapper, json);
        PluginWiring plugins = PluginWiring.load(config, clock, pluginParent, storage, upstreams, shared);
        ResilienceWiring resilience = ResilienceWiring.create(config, clock, storage, plugins, shared, parseObject);
        TelemetryWiring telemetry = TelemetryWiring.start(config, clock, console, storage, resilience, shared);
        // a connection's providerSpecificData is parsed once per distinct value, not once per attempt
        RoutingWiring routing = RoutingWiring.create(config, clock, storage, upstreams, plugins, resilience, telemetry, shared, mapper,
                parsedOnce(parseObject));
        // NF-6: pauses, learned pacing, resets and clears announced by the other instances apply here too
        // issue 35: another instance's change reaches every mechanism that keeps state of its own
        ClusterSync.start(shared.events(), clock, resilience.synced());
        ChangeFeed feed = ChangeFollowers.start(storage.db(), storage.connections(), storage.keys(), storage.combos(),
                storage.resilienceSettings(), storage.generalSettings(), routing.sessions(), plugins.models());
        RouteTable routes = new RouteTable();
        WebServer web = web(config, mapper, HttpApi.routing(dependencies(config, clock, mapper, storage, upstreams, plugins, resilience, telemetry,
                routing, shared), routes));
        if (!web.isRunning() || web.port() < 1) {
            web.stop();
            feed.close();
            telemetry.close();
            throw new IllegalStateException("cannot listen on " + config.host() + ":" + config.port()
                    + " (address in use or not available; see the log above)");
        }
        String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
        LOG.log(System.Logger.Level.INFO, "instance " + shared.instanceId() + ", database " + storage.db().dialect().kind() + " "
                + storage.db().url() + (shared.configured() ? ", shared state redis " + shared.url() : ""));
        console.println("Sluice listening on http://" + host + ":" + web.port());
        console.flush();
        routing.discovery().start(feed);
        return new SluiceServer(web, storage, feed, telemetry, plugins.registry(), upstreams, routing, routes, shared, console);
    }

    /** What the endpoints need, by concern. */
    private static HttpApi.Dependencies dependencies(SluiceConfig config, InstantSource clock, ObjectMapper mapper, StorageWiring storage, UpstreamWiring upstreams,
            PluginWiring plugins, ResilienceWiring resilience, TelemetryWiring telemetry, RoutingWiring routing, SharedState shared) {
        return new HttpApi.Dependencies(
                new HttpApi.Wire(mapper, config.maxBodyBytes(), storage.adminHash(), upstreams.codec(), clock),
                new HttpApi.Stores(storage.connections(), storage.keys(), storage.combos(), storage.db(), plugins.registry(), plugins.catalog(),
                        plugins.models(), routing.discovery()),
                new HttpApi.Routes(routing.resolver(), routing.router(), routing.listing(), routing.strategies(), routing.comboRouter(),
                        routing.sessions(), routing.leaseCandidates(), routing.logins()),
                new HttpApi.Guards(resilience.resilience(), storage.resilienceSettings(), storage.generalSettings(), resilience.gates(),
                        resilience.admission(), upstreams.http(), routing.dispatcher().streams()),
                // this server's id among the instances sharing a database: random per start, logged, shown by the health view
                new HttpApi.Watch(telemetry.telemetry(), telemetry.usage(), config.observability().metricsPublic(), shared.instanceId(), shared,
                        telemetry.history()));
    }

    /** The web server on the configured address, with Sluice's connection handling. */
    private static WebServer web(SluiceConfig config, ObjectMapper mapper, HttpRouting.Builder routing) {
        return WebServer.builder()
                .host(config.host())
                .port(config.port())
                .connectionOptions(o -> o.tcpNoDelay(true))
                // CO-3: handlers can tell when their client disconnects; issue 29: it is the only selector, so a connection's
                // first read is its own (bounded); with Helidon's discovered HTTP/1 beside it Helidon reads it unbounded
                .protocolsDiscoverServices(false)
                .addConnectionSelector(ClientConnections.create(config.clientLimits(), config.idleConnectionTimeout()))
                .writeQueueLength(WRITE_QUEUE_LENGTH)
                // issue 19: idle keep-alive connections and requests whose headers or body stopped arriving are closed
                .idleConnectionTimeout(config.idleConnectionTimeout())
                .idleConnectionPeriod(idlePeriod(config.idleConnectionTimeout()))
                .shutdownHook(false)
                // issue 37: on SIGTERM, web.stop() closes the listener, lets requests under way finish for this long, then ends them
                .shutdownGracePeriod(config.clientLimits().shutdownGrace())
                // API-6: refusals of the HTTP layer carry the error envelope too, not an empty body
                .directHandlers(TransportErrors.create(mapper))
                .routing(routing)
                .build()
                .start();
    }

    /** How often idle connections are looked for: a tenth of the timeout, between 100 ms and 10 s. */
    static java.time.Duration idlePeriod(java.time.Duration timeout) {
        long ms = Math.max(100, Math.min(10_000, timeout.toMillis() / 10));
        return java.time.Duration.ofMillis(ms);
    }

    /** The most distinct JSON values {@link #parsedOnce} remembers before it starts afresh. */
    private static final int PARSED_JSON_CACHE = 4_096;

    /**
     * A parser that parses each distinct text once (connections' JSON settings change rarely and are
     * read per attempt); the values it returns are shared, so they are made unmodifiable.
     */
    static Function<String, Map<String, Object>> parsedOnce(Function<String, Map<String, Object>> parser) {
        Map<String, Map<String, Object>> cache = new java.util.concurrent.ConcurrentHashMap<>();
        return json -> {
            Map<String, Object> parsed = cache.get(json);
            if (parsed == null) {
                if (cache.size() >= PARSED_JSON_CACHE) {
                    cache.clear();
                }
                parsed = java.util.Collections.unmodifiableMap(parser.apply(json));
                cache.put(json, parsed);
            }
            return parsed;
        };
    }

    private static Map<String, Object> parseObject(ObjectMapper mapper, String json) {
        try {
            Map<String, Object> m = mapper.readValue(json, new TypeReference<Map<String, Object>>() { });
            return m == null ? Map.of() : m;
        } catch (IOException e) {
            return Map.of();
        }
    }

    /** @return the port the server listens on */
    public int port() {
        return web.port();
    }

    /** @return the connection store (tests inspect and adjust state through it) */
    public ConnectionStore connections() {
        return storage.connections();
    }

    /** @return the proxy log store */
    public ProxyLogStore proxyLogs() {
        return storage.proxyLogs();
    }

    /** @return the proxy log writer (tests flush it) */
    public ProxyLogWriter proxyLogWriter() {
        return telemetry.logWriter();
    }

    /** @return metrics, access log and usage writer (tests flush them) */
    public Telemetry telemetry() {
        return telemetry.telemetry();
    }

    /** @return every route registered, {@code METHOD /path} (the OpenAPI document must describe them) */
    public java.util.List<String> routes() {
        return routes.routes();
    }

    /** @return the plugin registry */
    public PluginRegistry plugins() {
        return plugins;
    }

    /**
     * Stops accepting, lets the requests under way finish within the shutdown grace and ends the
     * rest, gives back what this instance holds in Redis, closes the egress route clients, flushes
     * logs, closes the database. Idempotent.
     */
    @Override
    public void close() {
        if (web.isRunning()) {
            // on the console, as the ready line: in a shutdown hook the log's own hook may already have closed its handlers
            console.println("Sluice stopping: no new connections; requests under way get " + web.prototype().shutdownGracePeriod().toMillis()
                    + " ms to finish (server.shutdownGraceMs)");
            console.flush();
            web.stop();
        }
        routing.discovery().close();
        routing.dispatcher().close();
        upstreams.close();
        // issue 37: permits and queue places held in Redis are given back before the log writer's wait (up to 5 s)
        shared.close();
        feed.close();
        telemetry.close();
        storage.db().close();
    }
}
