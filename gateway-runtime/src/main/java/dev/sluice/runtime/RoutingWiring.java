package dev.sluice.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.runtime.combo.flow.ComboFlows;
import dev.sluice.runtime.combo.routing.AutoCombos;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.discovery.ModelDiscovery;
import dev.sluice.runtime.entry.RequestRouter;
import dev.sluice.runtime.oauth.AccountConnections;
import dev.sluice.runtime.oauth.LoginFlows;
import dev.sluice.runtime.oauth.TokenEndpoint;
import dev.sluice.runtime.oauth.TokenRefresher;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.Dispatcher;
import dev.sluice.runtime.routing.ModelListing;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.RouteWalks;
import dev.sluice.runtime.session.Leases;
import dev.sluice.runtime.session.RoutedLeaseCandidates;
import dev.sluice.runtime.session.SessionPins;
import dev.sluice.runtime.session.Sessions;
import dev.sluice.runtime.settings.GeneralSettingsService;
import dev.sluice.runtime.store.JdbcDiscoveredModels;
import dev.sluice.runtime.store.JdbcLeaseStore;
import dev.sluice.runtime.store.JdbcSessionPinStore;
import dev.sluice.runtime.stream.StreamRules;
import dev.sluice.runtime.telemetry.TokenCounts;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The composition root's routing (issue 35): sessions, the connection selector, the dispatcher, the
 * combos with their strategies, the model listing and discovery, logins, and the router every
 * client request enters by.
 *
 * @param sessions session pins and exclusive leases (§10)
 * @param dispatcher attempts on connections, with failover
 * @param resolver model resolution
 * @param strategies the combo strategies, built-in then the plugins'
 * @param comboRouter routes requests that name a combo
 * @param discovery the upstreams' model lists, read in the background (issue 32)
 * @param listing the models each caller can route to (API-2)
 * @param router the entry point of every client request
 * @param leaseCandidates which connection a lease may take
 * @param logins subscription-account logins (issue 36)
 */
record RoutingWiring(Sessions sessions, Dispatcher dispatcher, ModelResolver resolver, ComboStrategies strategies,
        ComboRouter comboRouter, ModelDiscovery discovery, ModelListing listing, RequestRouter router,
        RoutedLeaseCandidates leaseCandidates, LoginFlows logins) {

    private static final System.Logger LOG = System.getLogger(RoutingWiring.class.getName());

    static RoutingWiring create(SluiceConfig config, InstantSource clock, StorageWiring storage, UpstreamWiring upstreams,
            PluginWiring plugins, ResilienceWiring resilience, TelemetryWiring telemetry, SharedState shared,
            ObjectMapper mapper, Function<String, Map<String, Object>> providerSpecificData) {
        GeneralSettingsService general = storage.generalSettings();
        // §10: session pins and exclusive leases, both durable in the database
        Sessions sessions = new Sessions(new SessionPins(new JdbcSessionPinStore(storage.db()), clock, general::sessionAffinityTtlMs),
                new Leases(new JdbcLeaseStore(storage.db()), clock));
        ConnectionSelector selector = new ConnectionSelector(storage.connections(), clock, resilience.engine(), sessions);
        // issue 36: token and refresh requests leave through the connection's (or the login's) proxyUrl; one refresh per cluster
        TokenEndpoint tokens = TokenEndpoint.routed(upstreams.http()::route, config.headersTimeout());
        TokenRefresher refresher = TokenRefresher.builder(plugins.logins(), tokens, storage.connections(), clock, plugins.refreshSkews())
                .locks(shared.refreshLocks(), Thread::sleep).build();
        Dispatcher dispatcher = Dispatcher.builder(selector, resilience.engine(), telemetry.telemetry().observing(telemetry.attempts()), clock,
                upstreams.http(), resilience.gates(), resilience.admission(), config.headersTimeout())
                .jsonObjectParser(providerSpecificData).sessions(sessions).events(shared.events())
                .tokens(refresher).build();
        ComboStrategies strategies = strategies(plugins, shared);
        ModelResolver resolver = new ModelResolver(plugins.catalog());
        // issue 32, 34: upstreams' GET /models, read in the background; the listing (and the virtual auto combos) read it from memory
        ModelDiscovery discovery = new ModelDiscovery(storage.connections(), plugins.catalog(), upstreams.http()::route,
                new JdbcDiscoveredModels(storage.db()), mapper, clock, config.modelDiscoveryInterval(),
                config.headersTimeout());
        ModelListing listing = ModelListing.builder(storage.combos(), plugins.catalog(), storage.connections(), resolver,
                        providerSpecificData, () -> general.modelAliases().exact())
                .aliasTargets(model -> general.modelAliases().resolve(model)).discovered(discovery::ids)
                .autoCombos(() -> config.catalog().autoCombos(), AutoCombos.NAMES.keySet()).build();
        // CO-3: a wait sleeps the request's virtual thread, never a platform thread
        ComboRouter comboRouter = new ComboRouter(storage.combos(), resolver, selector, strategies::find, clock, storage.resilienceSettings(),
                Thread::sleep, general::emergencyFallback, resilience.quotas(), plugins.models()::facts,
                new AutoCombos(() -> config.catalog().autoCombos(), listing::chatModels));
        // issue 34: context-relay, pipeline and fusion run above the combo router; what they read themselves is counted too
        ComboFlows comboFlows = new ComboFlows(comboRouter, plugins.models()::facts, (caller, step, latencyMs) -> {
            if (step.reply() instanceof Reply.Complete c) {
                telemetry.usage().countStep(caller.keyId(), step.route().provider().id(), step.connection().id(),
                        step.route().upstreamModel(), TokenCounts.of(c.response().usage()), latencyMs);
            }
        }, clock);
        RouteWalks walks = new RouteWalks(dispatcher, config.headersTimeout(),
                () -> streamRules(storage.resilienceSettings().get().streamRecovery()), upstreams.buffers());
        RequestRouter router = new RequestRouter(resolver, walks, comboFlows, model -> general.modelAliases().resolve(model));
        return new RoutingWiring(sessions, dispatcher, resolver, strategies, comboRouter, discovery, listing, router,
                new RoutedLeaseCandidates(resolver, selector, model -> general.modelAliases().resolve(model)),
                new LoginFlows(plugins.logins(), tokens, new AccountConnections(storage.connections()), clock));
    }

    /** SPEC §13: built-in strategies, then the plugins' (a clash already refused the plugin at load; kept as a guard). */
    private static ComboStrategies strategies(PluginWiring plugins, SharedState shared) {
        ComboStrategies strategies = ComboStrategies.builtIn(shared.turns());
        for (ComboStrategy contributed : plugins.registry().comboStrategies()) {
            try {
                strategies = strategies.with(List.of(contributed));
            } catch (IllegalArgumentException e) {
                LOG.log(System.Logger.Level.WARNING, "combo strategy skipped: " + e.getMessage());
            }
        }
        return strategies;
    }

    /** The stream watchdogs' view of the live {@code streamRecovery} settings. */
    static StreamRules streamRules(ResilienceSettings.StreamRecovery r) {
        ResilienceSettings.StreamRecovery.ThroughputWatchdog t = r.throughputWatchdog();
        return new StreamRules(r.readinessTimeoutMs(), r.idleTimeoutMs(), r.keepAliveIntervalMs(), r.attemptDeadlineMs(), r.earlyEofRetries(),
                new StreamRules.Throughput(t.enabled(), t.windowMs(), t.warmupMs(), t.minBytesPerSecond(), t.minMeasurableBytes()));
    }
}
