package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.anthropic.AnthropicCodec;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.routing.ModelListing;
import dev.sluice.runtime.discovery.ModelDiscovery;
import dev.sluice.runtime.routing.RequestRouter;
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
import dev.sluice.runtime.resilience.AdmissionPolicy;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.runtime.upstream.EgressRoutes;
import dev.sluice.runtime.resilience.ConnectionGates;
import dev.sluice.runtime.resilience.Resilience;
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
     * Everything the endpoints need.
     *
     * @param mapper JSON mapper
     * @param maxBodyBytes request body limit
     * @param adminKeyHash hash of the admin key
     * @param codec OpenAI codec
     * @param resolver model resolution
     * @param router the pipeline's entry point: routes every client request
     * @param models the models each caller can route to (API-2)
     * @param catalog providers
     * @param connections connection store
     * @param keys API key store
     * @param plugins plugin registry
     * @param database the database (readiness)
     * @param resilience the resilience mechanisms (admin views)
     * @param resilienceSettings the resilience settings tree (SPEC §18)
     * @param generalSettings the other settings ({@code /api/settings})
     * @param combos the combos (SPEC §13)
     * @param comboStrategies the combo strategies, built-in and contributed
     * @param comboRouter routes requests that name a combo
     * @param clock the clock
     * @param gates the caps and request queue in front of each connection (§12, §14)
     * @param admissionPolicy what limits a request on a connection
     * @param egress the outbound routes (their clients are let go when no connection uses them)
     * @param streams how streams ended, by reason (§15)
     * @param sessions session pins and exclusive leases (§10)
     * @param leaseCandidates which connection a lease may take (the routing rules)
     * @param telemetry metrics, access log and usage rows, fed once per request
     * @param usage the usage totals, table and memory ({@code GET /api/usage})
     * @param metricsPublic whether {@code GET /metrics} answers without the admin key
     * @param instanceId this server's id among the instances sharing a database (the health view shows it)
     * @param shared the hot resilience state shared through Redis (the health view shows its reachability)
     * @param requestHistory recent requests and persisted failed attempts ({@code GET /api/logs})
     * @param discovery the upstreams' model lists (issue 32): shown on, and refreshed through, {@code /api/providers}
     * @param logins subscription-account logins ({@code /api/oauth}, issue 36)
     * @param modelCatalog the model catalog ({@code /api/models}, usage cost; issue 34)
     */
    public record Dependencies(ObjectMapper mapper, long maxBodyBytes, String adminKeyHash, OpenAiCodec codec,
            ModelResolver resolver, RequestRouter router, ModelListing models, ProviderCatalog catalog,
            ConnectionStore connections, ApiKeyStore keys, PluginRegistry plugins, Database database,
            Resilience resilience, ResilienceSettingsService resilienceSettings,
            GeneralSettingsService generalSettings, ComboStore combos, ComboStrategies comboStrategies, ComboRouter comboRouter,
            InstantSource clock, ConnectionGates gates, AdmissionPolicy admissionPolicy, EgressRoutes egress, StreamCounters streams,
            Sessions sessions, LeaseCandidates leaseCandidates, Telemetry telemetry, UsageTotals usage, boolean metricsPublic,
            String instanceId, SharedState shared, RequestHistory requestHistory, ModelDiscovery discovery,
            dev.sluice.runtime.oauth.LoginFlows logins, dev.sluice.runtime.catalog.ModelCatalog modelCatalog) {
    }

    /** What a connection's executor keeps about it; a misbehaving executor shows nothing rather than failing the view. */
    private static Map<String, Object> pluginState(Dependencies d, dev.sluice.runtime.store.Connection c) {
        try {
            return d.catalog().find(c.provider()).map(p -> p.executor().connectionState(c.id())).orElse(Map.of());
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
        Json json = new Json(d.mapper(), d.maxBodyBytes());
        Authenticator auth = new Authenticator(d.keys(), d.adminKeyHash());
        HttpRouting.Builder routing = HttpRouting.builder();
        ClientConnections.register(routing);
        // issue 19: the large upstream answers a request reads count against upstream.answerBufferBytes until it is answered
        routing.addFilter((chain, req, res) -> dev.sluice.runtime.io.AnswerBuffers.withinRequest(chain::proceed));
        RequestIds.register(routing);
        RequestTelemetry.register(routing, d.telemetry());
        new ErrorMapper(json).register(routing);
        routes.register(routing, "/health", new HealthService(json, d.database()));
        routes.register(routing, "/openapi", new OpenApiService(d.mapper()));
        routes.register(routing, "/metrics", new MetricsService(auth, d.telemetry().metrics(), d.metricsPublic()));
        routes.register(routing, "/api/usage", new UsageAdminService(json, auth, d.usage(), d.modelCatalog()::price, d.clock()));
        routes.register(routing, "/api/models", new ModelsAdminService(json, auth, d.modelCatalog()));
        routes.register(routing, "/api/logs", new LogsAdminService(json, auth, d.requestHistory(), d.clock()));
        // the dashboard's page needs its trailing slash: /ui answers with a redirect (not an API operation)
        routing.get("/ui", DashboardService::redirect);
        routes.register(routing, "/ui", new DashboardService());
        ClientAffinity affinity = new ClientAffinity(d.mapper(), d.generalSettings()::sessionAffinityTtlMs, d.sessions().leases(),
                d.leaseCandidates());
        routes.register(routing, "/v1", new OpenAiApiService(json, auth, d.codec(), d.router(), d.models(), affinity));
        routes.register(routing, "/v1", new AnthropicMessagesService(json, auth, new AnthropicCodec(), d.router(), affinity));
        routes.register(routing, "/v1", new ResponsesApiService(json, auth, d.router(), d.clock(), affinity));
        routes.register(routing, "/api/v1/session-leases", new SessionLeasesService(json, auth, d.sessions().leases(), d.leaseCandidates()));
        routes.register(routing, "/api/sessions", new SessionsAdminService(json, auth, d.sessions(), d.generalSettings()::sessionAffinityTtlMs));
        routes.register(routing, "/api/providers", new ProvidersAdminService(json, auth, d.connections(), new ConnectionJson(json, d.catalog()),
                d.gates()::forget, () -> d.egress().retain(d.connections().list().stream()
                        .map(c -> EgressRoute.of(c.localAddress(), c.proxyUrl())).collect(java.util.stream.Collectors.toSet())),
                d.discovery()));
        routes.register(routing, "/api/combos", new CombosAdminService(json, auth, d.combos(), d.comboStrategies()::find,
                d.comboStrategies()::names, id -> d.connections().find(id).isPresent(),
                name -> d.comboRouter().forget(name, d.comboStrategies()),
                (combo, caller, body) -> d.comboRouter().explain(combo, caller, ComboRouter.facts(explainedRequest(d.codec(), body)))));
        routes.register(routing, "/api/keys", new KeysAdminService(json, auth, d.keys(), d.connections(), d.sessions().leases()::revokeKey));
        routes.register(routing, "/api/oauth", new OAuthAdminService(json, auth, d.logins()));
        routes.register(routing, "/api/plugins", new PluginsAdminService(json, auth, d.plugins()));
        ResilienceAdminService resilience = new ResilienceAdminService(json, auth, d.connections(), d.resilience().breakers(),
                d.resilience().cooldowns(), d.resilience().lockouts(), d.resilience().providerCooldowns(), d.gates(), d.clock(),
                d.streams(), d.sessions(), c -> pluginState(d, c), new Deployment(d.instanceId(), d.database(), d.shared()));
        routes.register(routing, "/api/resilience", new ResilienceSettingsAdminService(json, auth, d.resilienceSettings()));
        routes.register(routing, "/api/resilience", resilience.resilience());
        routes.register(routing, "/api/monitoring", resilience.monitoring());
        routes.register(routing, "/api/settings", new SettingsAdminService(json, auth, d.generalSettings()));
        routes.register(routing, "/api/rate-limits", new RateLimitsAdminService(json, auth, d.connections(), d.admissionPolicy(), d.gates()));
        routing.any(HttpApi::unknownRoute);
        return routing;
    }

    /** Methods of every route, for 405 answers (path pattern → allowed methods). */
    private static final Map<java.util.regex.Pattern, String> ROUTES = Map.ofEntries(
            Map.entry(java.util.regex.Pattern.compile("/v1/chat/completions"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/v1/responses"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/v1/embeddings"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/v1/messages(/count_tokens)?"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/v1/models(/.+)?"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/providers/?"), "GET, POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/providers/[^/]+"), "GET, PUT, PATCH, DELETE"),
            Map.entry(java.util.regex.Pattern.compile("/api/providers/[^/]+/test"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/combos/?"), "GET, POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/combos/[^/]+"), "GET, PUT, DELETE"),
            Map.entry(java.util.regex.Pattern.compile("/api/keys/?"), "GET, POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/keys/[^/]+"), "PATCH, DELETE"),
            Map.entry(java.util.regex.Pattern.compile("/api/plugins/?"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/oauth/[^/]+/start"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/oauth/callback"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/oauth/providers"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/oauth/flows/[^/]+"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/oauth/flows/[^/]+/code"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/resilience/?"), "GET, PATCH"),
            Map.entry(java.util.regex.Pattern.compile("/api/resilience/reset"), "POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/resilience/schema"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/resilience/cooldowns"), "GET, POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/resilience/model-cooldowns"), "GET, DELETE"),
            Map.entry(java.util.regex.Pattern.compile("/api/monitoring/health"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/settings/?"), "GET, PATCH"),
            Map.entry(java.util.regex.Pattern.compile("/api/settings/schema"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/rate-limits/?"), "GET, POST"),
            Map.entry(java.util.regex.Pattern.compile("/api/usage/?"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/models/?"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/api/models/.+"), "GET, PUT, DELETE"),
            Map.entry(java.util.regex.Pattern.compile("/api/logs/?"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/metrics/?"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/openapi/?"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/health/(live|ready)"), "GET"),
            Map.entry(java.util.regex.Pattern.compile("/ui(/[^/]*)?"), "GET"));

    private static void unknownRoute(ServerRequest req, ServerResponse res) {
        String path = req.path().path();
        for (Map.Entry<java.util.regex.Pattern, String> route : ROUTES.entrySet()) {
            if (route.getKey().matcher(path).matches()) {
                throw new ApiException(405, "invalid_request_error", "method_not_allowed",
                        "Method " + req.prologue().method().text() + " is not allowed on " + path + " (allowed: " + route.getValue() + ").",
                        null, Map.of("Allow", route.getValue()));
            }
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
