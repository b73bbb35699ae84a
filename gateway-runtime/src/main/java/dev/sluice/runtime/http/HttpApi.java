package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.anthropic.AnthropicCodec;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.routing.ModelListing;
import dev.sluice.runtime.discovery.ModelDiscovery;
import dev.sluice.runtime.entry.RequestRouter;
import dev.sluice.runtime.stream.StreamCounters;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.store.ApiKeyStore;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.store.Database;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.runtime.upstream.EgressRoutes;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.engine.Resilience;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.settings.GeneralSettingsService;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.session.LeaseCandidates;
import dev.sluice.runtime.session.Sessions;
import dev.sluice.runtime.store.UsageTotals;
import dev.sluice.runtime.telemetry.RequestHistory;
import dev.sluice.runtime.telemetry.Telemetry;
import java.time.InstantSource;
import java.util.Map;

/** Assembles the routing of every endpoint group; tests reuse it. */
public final class HttpApi {

    private HttpApi() {
    }

    /**
     * Everything the endpoints need, by concern (issue 35: no component of more than ~8 collaborators).
     *
     * @param wire the wire: JSON, limits, the admin key, the OpenAI codec, the clock
     * @param stores what is stored: connections, keys, combos, the database, plugins, providers, models
     * @param routes how requests are routed: resolution, the router, listings, combos, sessions, logins
     * @param guards the resilience mechanisms, their settings, the gates and the egress routes
     * @param watch telemetry, usage, request history and the deployment's view
     */
    public record Dependencies(Wire wire, Stores stores, Routes routes, Guards guards, Watch watch) {
    }

    /**
     * @param mapper JSON mapper
     * @param maxBodyBytes request body limit
     * @param adminKeyHash hash of the admin key
     * @param codec OpenAI codec
     * @param clock the clock
     */
    public record Wire(ObjectMapper mapper, long maxBodyBytes, String adminKeyHash, OpenAiCodec codec, InstantSource clock) {
    }

    /**
     * @param connections connection store
     * @param keys API key store
     * @param combos the combos (SPEC §13)
     * @param database the database (readiness)
     * @param plugins plugin registry
     * @param catalog providers
     * @param modelCatalog the model catalog ({@code /api/models}, usage cost; issue 34)
     * @param discovery the upstreams' model lists (issue 32): shown on, and refreshed through, {@code /api/providers}
     */
    public record Stores(ConnectionStore connections, ApiKeyStore keys, ComboStore combos, Database database, PluginRegistry plugins,
            ProviderCatalog catalog, dev.sluice.runtime.catalog.ModelCatalog modelCatalog, ModelDiscovery discovery) {
    }

    /**
     * @param resolver model resolution
     * @param router the pipeline's entry point: routes every client request
     * @param models the models each caller can route to (API-2)
     * @param comboStrategies the combo strategies, built-in and contributed
     * @param comboRouter routes requests that name a combo
     * @param sessions session pins and exclusive leases (§10)
     * @param leaseCandidates which connection a lease may take (the routing rules)
     * @param logins subscription-account logins ({@code /api/oauth}, issue 36)
     */
    public record Routes(ModelResolver resolver, RequestRouter router, ModelListing models, ComboStrategies comboStrategies,
            ComboRouter comboRouter, Sessions sessions, LeaseCandidates leaseCandidates, dev.sluice.runtime.oauth.LoginFlows logins) {
    }

    /**
     * @param resilience the resilience mechanisms (admin views)
     * @param resilienceSettings the resilience settings tree (SPEC §18)
     * @param generalSettings the other settings ({@code /api/settings})
     * @param gates the caps and request queue in front of each connection (§12, §14)
     * @param admissionPolicy what limits a request on a connection
     * @param egress the outbound routes (their clients are let go when no connection uses them)
     * @param streams how streams ended, by reason (§15)
     */
    public record Guards(Resilience resilience, ResilienceSettingsService resilienceSettings, GeneralSettingsService generalSettings,
            ConnectionGates gates, AdmissionPolicy admissionPolicy, EgressRoutes egress, StreamCounters streams) {
    }

    /**
     * @param telemetry metrics, access log and usage rows, fed once per request
     * @param usage the usage totals, table and memory ({@code GET /api/usage})
     * @param metricsPublic whether {@code GET /metrics} answers without the admin key
     * @param instanceId this server's id among the instances sharing a database (the health view shows it)
     * @param shared the hot resilience state shared through Redis (the health view shows its reachability)
     * @param requestHistory recent requests and persisted failed attempts ({@code GET /api/logs})
     */
    public record Watch(Telemetry telemetry, UsageTotals usage, boolean metricsPublic, String instanceId, SharedState shared,
            RequestHistory requestHistory) {
    }

    /** What a connection's executor keeps about it; a misbehaving executor shows nothing rather than failing the view. */
    private static Map<String, Object> pluginState(Dependencies d, dev.sluice.runtime.store.Connection c) {
        try {
            return d.stores().catalog().find(c.provider()).map(p -> p.executor().connectionState(c.id())).orElse(Map.of());
        } catch (RuntimeException e) {
            return Map.of();
        }
    }

    /**
     * The routing.
     *
     * @param d dependencies
     * @return a routing builder
     */
    public static HttpRouting.Builder routing(Dependencies d) {
        return routing(d, new RouteTable());
    }

    /**
     * The routing, writing down every route it registers.
     *
     * @param d dependencies
     * @param routes receives the routes
     * @return a routing builder
     */
    public static HttpRouting.Builder routing(Dependencies d, RouteTable routes) {
        Json json = new Json(d.wire().mapper(), d.wire().maxBodyBytes());
        Authenticator auth = new Authenticator(d.stores().keys(), d.wire().adminKeyHash());
        HttpRouting.Builder routing = HttpRouting.builder();
        ClientConnections.register(routing);
        // issue 19: the large upstream answers a request reads count against upstream.answerBufferBytes until it is answered
        routing.addFilter((chain, req, res) -> dev.sluice.runtime.io.AnswerBuffers.withinRequest(chain::proceed));
        RequestIds.register(routing);
        RequestTelemetry.register(routing, d.watch().telemetry());
        new ErrorMapper(json).register(routing);
        routes.register(routing, "/health", new HealthService(json, d.stores().database()));
        routes.register(routing, "/openapi", new OpenApiService(d.wire().mapper()));
        routes.register(routing, "/metrics", new MetricsService(auth, d.watch().telemetry().metrics(), d.watch().metricsPublic()));
        routes.register(routing, "/api/usage", new UsageAdminService(json, auth, d.watch().usage(), d.stores().modelCatalog()::price, d.wire().clock()));
        routes.register(routing, "/api/models", new ModelsAdminService(json, auth, d.stores().modelCatalog()));
        routes.register(routing, "/api/logs", new LogsAdminService(json, auth, d.watch().requestHistory(), d.wire().clock()));
        // the dashboard's page needs its trailing slash: /ui answers with a redirect (not an API operation)
        routing.get("/ui", DashboardService::redirect);
        routes.register(routing, "/ui", new DashboardService());
        ClientAffinity affinity = new ClientAffinity(d.wire().mapper(), d.guards().generalSettings()::sessionAffinityTtlMs, d.routes().sessions().leases(),
                d.routes().leaseCandidates());
        routes.register(routing, "/v1", new OpenAiApiService(json, auth, d.wire().codec(), d.routes().router(), d.routes().models(), affinity));
        routes.register(routing, "/v1", new AnthropicMessagesService(json, auth, new AnthropicCodec(), d.routes().router(), affinity));
        routes.register(routing, "/v1", new ResponsesApiService(json, auth, d.routes().router(), d.wire().clock(), affinity));
        routes.register(routing, "/api/v1/session-leases", new SessionLeasesService(json, auth, d.routes().sessions().leases(), d.routes().leaseCandidates()));
        routes.register(routing, "/api/sessions", new SessionsAdminService(json, auth, d.routes().sessions(), d.guards().generalSettings()::sessionAffinityTtlMs));
        routes.register(routing, "/api/providers", new ProvidersAdminService(json, auth, d.stores().connections(), new ConnectionJson(json, d.stores().catalog()),
                d.guards().gates()::forget, () -> d.guards().egress().retain(d.stores().connections().list().stream()
                        .map(c -> EgressRoute.of(c.localAddress(), c.proxyUrl())).collect(java.util.stream.Collectors.toSet())),
                d.stores().discovery()));
        routes.register(routing, "/api/combos", new CombosAdminService(json, auth, d.stores().combos(), d.routes().comboStrategies()::find,
                d.routes().comboStrategies()::names, id -> d.stores().connections().find(id).isPresent(),
                name -> d.routes().comboRouter().forget(name, d.routes().comboStrategies()),
                (combo, caller, body) -> d.routes().comboRouter().explain(combo, caller, ComboRouter.facts(explainedRequest(d.wire().codec(), body))),
                (name, caller) -> d.routes().comboRouter().combo(name, caller)));
        routes.register(routing, "/api/keys", new KeysAdminService(json, auth, d.stores().keys(), d.stores().connections(), d.routes().sessions().leases()::revokeKey));
        routes.register(routing, "/api/oauth", new OAuthAdminService(json, auth, d.routes().logins()));
        routes.register(routing, "/api/plugins", new PluginsAdminService(json, auth, d.stores().plugins()));
        ResilienceAdminService resilience = new ResilienceAdminService(json, auth, d.stores().connections(), d.guards().resilience(), d.guards().gates(), d.wire().clock(),
                d.guards().streams(), d.routes().sessions(), c -> pluginState(d, c), new Deployment(d.watch().instanceId(), d.stores().database(), d.watch().shared()));
        routes.register(routing, "/api/resilience", new SettingsDocumentService(json, auth, SettingsDocumentService.resilience(d.guards().resilienceSettings())));
        routes.register(routing, "/api/resilience", resilience.resilience());
        routes.register(routing, "/api/monitoring", resilience.monitoring());
        routes.register(routing, "/api/settings", new SettingsDocumentService(json, auth, SettingsDocumentService.general(d.guards().generalSettings())));
        routes.register(routing, "/api/rate-limits", new RateLimitsAdminService(json, auth, d.stores().connections(), d.guards().admissionPolicy(), d.guards().gates()));
        routing.any((req, res) -> unknownRoute(routes, req, res));
        return routing;
    }

    /** 405 with the methods the routes registered for this path, else 404. */
    private static void unknownRoute(RouteTable routes, ServerRequest req, ServerResponse res) {
        String path = req.path().path();
        String allowed = routes.allowedMethods(path);
        if (allowed != null) {
            throw new ApiException(405, "invalid_request_error", "method_not_allowed",
                    "Method " + req.prologue().method().text() + " is not allowed on " + path + " (allowed: " + allowed + ").",
                    null, Map.of("Allow", allowed));
        }
        throw new ApiException(404, "invalid_request_error", "unknown_route",
                "Unknown route: " + req.prologue().method().text() + " " + path, null, Map.of());
    }

    /**
     * The request an explain body holds, read as a chat completion, else as a Messages request;
     * null when it is neither (the strategies then know nothing of it).
     */
    private static dev.sluice.api.chat.ChatRequest explainedRequest(OpenAiCodec codec, byte[] body) {
        try {
            return codec.readChatRequest(body);
        } catch (RuntimeException notChat) {
            try {
                return new AnthropicCodec().readMessagesRequest(body);
            } catch (RuntimeException notMessages) {
                return null;
            }
        }
    }
}
