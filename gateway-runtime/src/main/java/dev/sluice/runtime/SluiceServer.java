package dev.sluice.runtime;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.io.AnswerBuffers;
import dev.sluice.runtime.io.AnswerWatch;
import dev.sluice.runtime.http.ClientConnections;
import dev.sluice.runtime.http.HttpApi;
import dev.sluice.runtime.http.RouteTable;
import dev.sluice.runtime.http.TransportErrors;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.openai.OpenAiCompatibleExecutor;
import dev.sluice.runtime.plugin.DefaultHostContext;
import dev.sluice.runtime.plugin.LoadedPlugin;
import dev.sluice.runtime.plugin.PluginLoader;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.settings.ResilienceEnvironment;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.engine.ClusterSync;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.resilience.window.shared.SharedProviderCooldowns;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.resilience.cooldown.EgressLocks;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import dev.sluice.runtime.resilience.engine.Resilience;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.routing.BuiltinProviders;
import dev.sluice.runtime.routing.ModelListing;
import dev.sluice.runtime.discovery.ModelDiscovery;
import dev.sluice.runtime.store.JdbcDiscoveredModels;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.routing.RequestRouter;
import dev.sluice.runtime.stream.StreamRules;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.Dispatcher;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.session.Leases;
import dev.sluice.runtime.session.RoutedLeaseCandidates;
import dev.sluice.runtime.session.SessionPins;
import dev.sluice.runtime.session.Sessions;
import dev.sluice.runtime.store.JdbcLeaseStore;
import dev.sluice.runtime.store.JdbcSessionPinStore;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.security.AdminKeys;
import dev.sluice.runtime.settings.GeneralSettingsService;
import dev.sluice.runtime.settings.ResilienceSettingsLayers;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.ChangeFeed;
import dev.sluice.runtime.catalog.ModelCatalog;
import dev.sluice.runtime.combo.routing.AutoCombos;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.ProxyLogStore;
import dev.sluice.runtime.store.ProxyLogWriter;
import dev.sluice.runtime.store.JdbcApiKeyStore;
import dev.sluice.runtime.store.JdbcBreakerStore;
import dev.sluice.runtime.store.JdbcComboStore;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.SealedCredentials;
import dev.sluice.runtime.store.JdbcProxyLogStore;
import dev.sluice.runtime.store.JdbcSettingsStore;
import dev.sluice.runtime.store.JdbcUsageStore;
import dev.sluice.runtime.telemetry.AccessLog;
import dev.sluice.runtime.telemetry.SluiceMetrics;
import dev.sluice.runtime.telemetry.AttemptLog;
import dev.sluice.runtime.telemetry.RecentRequests;
import dev.sluice.runtime.telemetry.RequestHistory;
import dev.sluice.runtime.telemetry.Telemetry;
import dev.sluice.runtime.telemetry.UsageMeter;
import dev.sluice.runtime.upstream.EgressRoutes;
import dev.sluice.runtime.upstream.HelidonUpstreamHttp;
import io.helidon.webserver.WebServer;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One running Sluice: wires configuration, storage, plugins, routing and the web server. Tests
 * start it in-process with their own clock and data folder.
 */
public final class SluiceServer implements AutoCloseable {

    /** Issue 36: the login descriptions of the loaded plugins, with each plugin's endpoint settings applied. */
    private static Map<String, dev.sluice.api.oauth.OAuthLogin> effectiveLogins(PluginRegistry registry, SluiceConfig config,
            Map<String, Long> skews) {
        Map<String, dev.sluice.api.oauth.OAuthLogin> logins = new java.util.HashMap<>();
        for (LoadedPlugin p : registry.plugins()) {
            Map<String, String> settings = config.pluginSettings().getOrDefault(p.name(), Map.of());
            for (dev.sluice.api.oauth.OAuthLogin login : p.oauthLogins()) {
                skews.put(login.provider(), dev.sluice.runtime.oauth.LoginSettings.refreshSkewMs(settings,
                        dev.sluice.runtime.oauth.TokenRefresher.DEFAULT_SKEW_MS));
                try {
                    logins.put(login.provider(), dev.sluice.runtime.oauth.LoginSettings.apply(login, settings));
                } catch (IllegalArgumentException e) {
                    LOG.log(System.Logger.Level.WARNING, "plugins.settings." + p.name() + ": " + e.getMessage()
                            + "; the login of '" + login.provider() + "' uses the plugin's own endpoints");
                    logins.put(login.provider(), login);
                }
            }
        }
        return logins;
    }

    private static final System.Logger LOG = System.getLogger(SluiceServer.class.getName());
    /** Server writes queued per connection before the writer blocks (doubled streaming throughput). */
    static final int WRITE_QUEUE_LENGTH = 32;

    private final WebServer web;
    private final Database database;
    private final ChangeFeed feed;
    private final ProxyLogWriter logWriter;
    private final ConnectionStore connections;
    private final ProxyLogStore proxyLogs;
    private final PluginRegistry plugins;
    private final EgressRoutes egress;

    private final Dispatcher dispatcher;
    private final Telemetry telemetry;
    private final RouteTable routes;
    private final SharedState shared;
    private final ModelDiscovery discovery;

    private SluiceServer(WebServer web, Database database, ChangeFeed feed, ProxyLogWriter logWriter, ConnectionStore connections,
            ProxyLogStore proxyLogs, PluginRegistry plugins, EgressRoutes egress, Dispatcher dispatcher, Telemetry telemetry,
            RouteTable routes, SharedState shared, ModelDiscovery discovery) {
        this.discovery = discovery;
        this.feed = feed;
        this.shared = shared;
        this.telemetry = telemetry;
        this.routes = routes;
        this.dispatcher = dispatcher;
        this.egress = egress;
        this.web = web;
        this.database = database;
        this.logWriter = logWriter;
        this.connections = connections;
        this.proxyLogs = proxyLogs;
        this.plugins = plugins;
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
        if (db.shared() && config.secretKey() == null && !java.nio.file.Files.exists(config.dataDir().resolve("secret.key"))) {
            // every instance must open the credentials the others sealed: one key, given to all
            throw new IllegalStateException("with SLUICE_DATABASE_URL every instance must use the same credential key: set"
                    + " SLUICE_SECRET_KEY (base64 of 32 bytes) on every instance, or copy one instance's secret.key into "
                    + config.dataDir());
        }
        SecretBox box = SecretBox.open(config.secretKey(), config.dataDir(), !SealedCredentials.present(db));
        JdbcConnectionStore connections = new JdbcConnectionStore(db, box, clock);
        JdbcApiKeyStore keys = new JdbcApiKeyStore(db, clock);
        JdbcSettingsStore settings = new JdbcSettingsStore(db, clock);
        JdbcProxyLogStore proxyLogs = new JdbcProxyLogStore(db);
        String adminHash = AdminKeys.resolveHash(config.adminKey(), settings, console);

        // every executor sends through the egress routes: a connection's localAddress / proxyUrl (§16.3)
        // issue 19: every upstream answer is read within the operator's memory bounds
        AnswerBuffers buffers = new AnswerBuffers(config.upstreamLimits().maxAnswerBytes(), config.upstreamLimits().maxEventBytes(),
                config.upstreamLimits().answerBufferBytes(), config.upstreamLimits().maxStreamBytes(),
                // issue 28: and a whole answer within its silence and deadline bounds
                new AnswerWatch(config.upstreamLimits().bodyIdleTimeoutMs(), config.upstreamLimits().answerDeadlineMs()));
        EgressRoutes http = EgressRoutes.create(new HelidonUpstreamHttp(config.connectTimeout(), config.headersTimeout(), buffers),
                config.connectTimeout(), config.egressProbeUrl(), clock, buffers);
        try {
            return start(config, clock, pluginParent, console, db, shared, mapper, box, connections, keys, settings, proxyLogs, adminHash,
                    http, buffers);
        } catch (RuntimeException e) {
            http.close();
            throw e;
        }
    }

    private static SluiceServer start(SluiceConfig config, InstantSource clock, ModuleLayer pluginParent, PrintStream console,
            Database db, SharedState shared, ObjectMapper mapper, SecretBox box, JdbcConnectionStore connections, JdbcApiKeyStore keys,
            JdbcSettingsStore settings, JdbcProxyLogStore proxyLogs, String adminHash, EgressRoutes http, AnswerBuffers buffers) {
        OpenAiCodec codec = new OpenAiCodec();
        OpenAiCompatibleExecutor openAi = new OpenAiCompatibleExecutor(http, codec);
        Map<String, ProviderExecutor> builtinExecutors = Map.of(HostContext.OPENAI_COMPATIBLE, openAi,
                HostContext.OPENAI_RESPONSES, openAi.withResponsesPassthrough());

        Set<String> builtinIds = BuiltinProviders.ALL.stream().map(ProviderDescriptor::id).collect(Collectors.toSet());
        PluginRegistry loaded = PluginLoader.create(config.pluginsDir(), pluginParent, PluginLoader.class.getClassLoader())
                .load(builtinIds, ComboStrategies.builtIn().names(), config.strictPlugins());
        // SH-2: a plugin whose executor cannot start is refused whole, with its providers
        PluginRegistry registry = loaded.startExecutors(p -> {
            Set<String> own = p.providers().stream().map(ProviderDescriptor::id).collect(Collectors.toSet());
            CredentialUpdates updates = new dev.sluice.runtime.store.PluginConnectionUpdates(connections, own);
            return new DefaultHostContext(p.name(), http, clock, config.pluginSettings().getOrDefault(p.name(), Map.of()),
                    builtinExecutors, updates, shared.notes(p.name()).orElse(null));
        }, config.strictPlugins());
        LOG.log(registry.failures().isEmpty() ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "Plugins from {0}: {1}",
                config.pluginsDir(), registry.summary());

        List<Provider> providers = new ArrayList<>();
        for (ProviderDescriptor d : BuiltinProviders.ALL) {
            providers.add(new Provider(d, builtinExecutors.get(d.executor()), Provider.BUILT_IN));
        }
        for (LoadedPlugin p : registry.plugins()) {
            for (ProviderDescriptor d : p.providers()) {
                ProviderExecutor e = registry.executor(d.executor()).orElseGet(() -> builtinExecutors.get(d.executor()));
                providers.add(new Provider(d, e, p.name()));
            }
        }
        ProviderCatalog catalog = new ProviderCatalog(providers, openAi, connections, registry.refusedProviders().entrySet().stream()
                .collect(Collectors.toMap(Map.Entry::getKey, e -> "plugin source " + e.getValue().source() + " was refused: "
                        + e.getValue().reason())));

        ProxyLogWriter logWriter = new ProxyLogWriter(proxyLogs, clock, 65_536);
        ResilienceSettingsService resilienceSettings = new ResilienceSettingsService(
                ResilienceSettingsLayers.configured(config.resilience(), config.resilienceEnv()), settings);
        // issue 35: a mechanism in shared mode is its local self wrapped by the decorator beside its board
        ProviderCooldowns windows = ProviderCooldowns.local(clock, resilienceSettings);
        if (shared.configured()) {
            windows = SharedProviderCooldowns.over(windows, shared.windows(), shared.events(), resilienceSettings);
        }
        Resilience resilience = new Resilience(new CircuitBreakers(clock, resilienceSettings, new JdbcBreakerStore(db), shared.breakers()),
                new ConnectionCooldowns(connections, clock, resilienceSettings, shared.cooldowns()), new ModelLockouts(clock, resilienceSettings, shared.lockouts()),
                windows);
        GeneralSettingsService generalSettings = new GeneralSettingsService(settings, config.emergencyFallback(), config.modelAliases(),
                config.sessionAffinityTtlMs());
        QuotaObservations quotas = new QuotaObservations(clock);
        // issue 34: the model catalog — descriptors < config file < modelPrices setting < operators' PUT /api/models
        ModelCatalog modelCatalog;
        try {
            modelCatalog = new ModelCatalog(ModelCatalog.declaredBy(providers), config.catalog().models(), generalSettings::modelPrices,
                    settings);
        } catch (dev.sluice.runtime.catalog.CatalogException e) {
            throw new IllegalArgumentException("config file: " + e.getMessage(), e);
        }
        // SPEC §16: plugins contribute rules and opt their providers into full-text matching and honoured scopes
        Set<String> fullText = new HashSet<>();
        Set<String> honourScope = new HashSet<>();
        for (Provider p : providers) {
            if (p.descriptor().fullTextErrorRules()) {
                fullText.add(p.id());
            }
            if (p.descriptor().honorsRuleScope()) {
                honourScope.add(p.id());
            }
        }
        // the built-in providers' rules (minimax), then the plugins'
        List<dev.sluice.api.rules.ErrorRule> shippedRules = new ArrayList<>(BuiltinProviders.ERROR_RULES);
        shippedRules.addAll(registry.errorRules());
        // issue 27: a plugin's rules for the providers it declares itself decide ahead of the built-in text patterns
        Set<dev.sluice.api.rules.ErrorRule> ownProviderRules = new HashSet<>();
        for (LoadedPlugin p : registry.plugins()) {
            Set<String> own = p.providers().stream().map(ProviderDescriptor::id).collect(Collectors.toSet());
            p.errorRules().stream().filter(r -> own.contains(r.provider())).forEach(ownProviderRules::add);
        }
        ErrorRules errorRules = new ErrorRules(shippedRules, fullText, honourScope, generalSettings::providerErrorRules, ownProviderRules);
        EgressLocks egressLocks = new EgressLocks(EgressLocks.family(registry.egressBucketing(), config.egressLockProviders()), connections,
                proxyLogs, resilience.cooldowns(), clock);
        ResilienceEngine engine = new ResilienceEngine(new FailureClassifier(clock, errorRules), resilienceSettings,
                ResilienceEngine.standard(resilience.cooldowns(), resilience.providerCooldowns(), egressLocks,
                        resilience.lockouts(), resilience.breakers()),
                new QuotaFamilies(registry.quotaFamilies()), new StatusRestatement(registry.restatementRules()), quotas);
        // §10: session pins and exclusive leases, both durable in SQLite
        Sessions sessions = new Sessions(new SessionPins(new JdbcSessionPinStore(db), clock, generalSettings::sessionAffinityTtlMs),
                new Leases(new JdbcLeaseStore(db), clock));
        ConnectionSelector selector = new ConnectionSelector(connections, clock, engine, sessions);
        // §12, §14: caps and the request queue in front of each connection
        AdmissionPolicy admissionPolicy = new AdmissionPolicy(resilienceSettings,
                AdmissionPolicy.autoEnableFromEnv(config.resilienceEnv().get(ResilienceEnvironment.AUTO_ENABLE)), json -> parseObject(mapper, json),
                registry.modelScopedLimits());
        // GET /metrics reads the resilience state at scrape time; the gates report queue waits as they happen
        SluiceMetrics[] metricsRef = new SluiceMetrics[1];
        ConnectionGates gates = new ConnectionGates(clock, nanos -> metricsRef[0].queueWait(nanos), shared.gates());
        SluiceMetrics metrics = new SluiceMetrics(connections, resilience.breakers(), resilience.lockouts(), gates, clock);
        metricsRef[0] = metrics;
        if (shared.configured()) {
            metrics.bindRedis(shared::fallback, shared::switchesToLocal, shared::switchesToShared);
        }
        // issue 26: usage is counted in memory per minute and added to the table every flush interval and at shutdown
        UsageMeter usage = UsageMeter.start(new JdbcUsageStore(db), clock, config.observability().usageFlushInterval());
        // issue 26: every attempt in a ring of recent requests, only failures and a sample of successes in proxy_logs
        RecentRequests recentRequests = new RecentRequests();
        Telemetry telemetry = new Telemetry(metrics, AccessLog.open(config.observability().accessLog(), console), usage, clock,
                System::nanoTime, recentRequests);
        AttemptLog attemptLog = new AttemptLog(recentRequests, logWriter::record, config.observability().proxyLogSuccessSample());
        // a connection's providerSpecificData is parsed once per distinct value, not once per attempt
        Function<String, Map<String, Object>> psd = parsedOnce(json -> parseObject(mapper, json));
        Map<String, Long> refreshSkews = new java.util.HashMap<>();
        Map<String, dev.sluice.api.oauth.OAuthLogin> logins = effectiveLogins(registry, config, refreshSkews);
        // issue 36: token and refresh requests leave through the connection's (or the login's) proxyUrl; one refresh per cluster
        dev.sluice.runtime.oauth.TokenEndpoint tokenEndpoint = dev.sluice.runtime.oauth.TokenEndpoint.routed(http::route, config.headersTimeout());
        dev.sluice.runtime.oauth.TokenRefresher refresher = new dev.sluice.runtime.oauth.TokenRefresher(logins, tokenEndpoint, connections,
                clock, refreshSkews, shared.refreshLocks(), Thread::sleep);
        Dispatcher dispatcher = new Dispatcher(selector, engine, telemetry.observing(attemptLog), clock, psd, http, gates,
                admissionPolicy, config.headersTimeout(), sessions, shared.events(), refresher);
        // NF-6: pauses, learned pacing, resets and clears announced by the other instances apply here too
        // issue 35: another instance's change reaches every mechanism that keeps state of its own
        List<Mechanism> synced = new ArrayList<>(engine.mechanisms());
        synced.add(gates);
        ClusterSync.start(shared.events(), clock, synced);
        // SPEC §13: built-in strategies, then the plugins' (a clash already refused the plugin at load; kept as a guard)
        ComboStrategies strategies = ComboStrategies.builtIn(shared.turns());
        for (ComboStrategy contributed : registry.comboStrategies()) {
            try {
                strategies = strategies.with(List.of(contributed));
            } catch (IllegalArgumentException e) {
                LOG.log(System.Logger.Level.WARNING, "combo strategy skipped: " + e.getMessage());
            }
        }
        JdbcComboStore combos = new JdbcComboStore(db, mapper, clock);
        ModelResolver resolver = new ModelResolver(catalog);
        ComboStrategies strategyRegistry = strategies;
        // CO-3: a wait sleeps the request's virtual thread, never a platform thread
        // issue 32, 34: upstreams' GET /models, read in the background; the listing (and the virtual auto combos) read it from memory
        ModelDiscovery discovery = new ModelDiscovery(connections, catalog, http::route, new JdbcDiscoveredModels(db), mapper, clock,
                config.modelDiscoveryInterval(), config.headersTimeout());
        ModelListing listing = new ModelListing(combos, catalog, connections, resolver, psd,
                () -> generalSettings.modelAliases().exact(), model -> generalSettings.modelAliases().resolve(model),
                discovery::ids, () -> config.catalog().autoCombos(), AutoCombos.NAMES.keySet());
        ComboRouter comboRouter = new ComboRouter(combos, resolver, selector, strategyRegistry::find, clock, resilienceSettings, Thread::sleep,
                generalSettings::emergencyFallback, quotas, modelCatalog::facts,
                new AutoCombos(() -> config.catalog().autoCombos(), listing::chatModels));
        // this server's id among the instances sharing a database: random per start, logged, shown by the health view
        String instanceId = shared.instanceId();
        ChangeFeed feed = ChangeFollowers.start(db, connections, keys, combos, resilienceSettings, generalSettings, sessions,
                modelCatalog);
        RequestRouter router = new RequestRouter(resolver, dispatcher, comboRouter, config.headersTimeout(),
                () -> streamRules(resilienceSettings.get().streamRecovery()), model -> generalSettings.modelAliases().resolve(model), buffers);

        HttpApi.Dependencies deps = new HttpApi.Dependencies(mapper, config.maxBodyBytes(), adminHash, codec,
                resolver, router, listing, catalog, connections, keys, registry, db, resilience, resilienceSettings,
                generalSettings, combos, strategyRegistry, comboRouter, clock, gates, admissionPolicy, http, dispatcher.streams(),
                sessions, new RoutedLeaseCandidates(resolver, selector, model -> generalSettings.modelAliases().resolve(model)),
                telemetry, usage, config.observability().metricsPublic(), instanceId, shared,
                new RequestHistory(recentRequests, proxyLogs), discovery, new dev.sluice.runtime.oauth.LoginFlows(logins, tokenEndpoint,
                        new dev.sluice.runtime.oauth.AccountConnections(connections), clock), modelCatalog);
        RouteTable routes = new RouteTable();
        WebServer web = WebServer.builder()
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
                .smartAsyncWrites(true)
                .shutdownHook(false)
                // issue 37: on SIGTERM, web.stop() closes the listener, lets requests under way finish for this long, then ends them
                .shutdownGracePeriod(config.clientLimits().shutdownGrace())
                // API-6: refusals of the HTTP layer carry the error envelope too, not an empty body
                .directHandlers(TransportErrors.create(mapper))
                .routing(HttpApi.routing(deps, routes))
                .build()
                .start();
        if (!web.isRunning() || web.port() < 1) {
            web.stop();
            feed.close();
            telemetry.close();
            throw new IllegalStateException("cannot listen on " + config.host() + ":" + config.port()
                    + " (address in use or not available; see the log above)");
        }
        String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
        LOG.log(System.Logger.Level.INFO, "instance " + instanceId + ", database " + db.dialect().kind() + " " + db.url()
                + (shared.configured() ? ", shared state redis " + shared.url() : ""));
        console.println("Sluice listening on http://" + host + ":" + web.port());
        console.flush();
        discovery.start(feed);
        return new SluiceServer(web, db, feed, logWriter, connections, proxyLogs, registry, http, dispatcher, telemetry, routes, shared,
                discovery);
    }

    /** How often idle connections are looked for: a tenth of the timeout, between 100 ms and 10 s. */
    static java.time.Duration idlePeriod(java.time.Duration timeout) {
        long ms = Math.max(100, Math.min(10_000, timeout.toMillis() / 10));
        return java.time.Duration.ofMillis(ms);
    }

    /** The stream watchdogs' view of the live {@code streamRecovery} settings. */
    static StreamRules streamRules(ResilienceSettings.StreamRecovery r) {
        ResilienceSettings.StreamRecovery.ThroughputWatchdog t = r.throughputWatchdog();
        return new StreamRules(r.readinessTimeoutMs(), r.idleTimeoutMs(), r.keepAliveIntervalMs(), r.attemptDeadlineMs(), r.earlyEofRetries(),
                new StreamRules.Throughput(t.enabled(), t.windowMs(), t.warmupMs(), t.minBytesPerSecond(), t.minMeasurableBytes()));
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
        return connections;
    }

    /** @return the proxy log store */
    public ProxyLogStore proxyLogs() {
        return proxyLogs;
    }

    /** @return the proxy log writer (tests flush it) */
    public ProxyLogWriter proxyLogWriter() {
        return logWriter;
    }

    /** @return metrics, access log and usage writer (tests flush them) */
    public Telemetry telemetry() {
        return telemetry;
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
            LOG.log(System.Logger.Level.INFO, "stopping: no new connections; requests under way get " + web.prototype().shutdownGracePeriod().toMillis()
                    + " ms to finish (server.shutdownGraceMs)");
            web.stop();
        }
        discovery.close();
        dispatcher.close();
        egress.close();
        // issue 37: permits and queue places held in Redis are given back before the log writer's wait (up to 5 s)
        shared.close();
        logWriter.close();
        feed.close();
        telemetry.close();
        database.close();
    }
}
