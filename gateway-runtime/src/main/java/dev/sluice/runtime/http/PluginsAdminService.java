package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.ConnectionField;
import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.RestatementRule;
import dev.sluice.runtime.plugin.LoadedPlugin;
import dev.sluice.runtime.plugin.PluginFailure;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.routing.BuiltinProviders;
import dev.sluice.runtime.routing.ConnectionFieldCatalog;
import dev.sluice.runtime.settings.OperatorErrorRules;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/** {@code GET /api/plugins}: loaded plugins, their SPI version and contributions, and refusals. */
final class PluginsAdminService implements HttpService {

    private final Json json;
    private final Authenticator auth;
    private final PluginRegistry registry;

    PluginsAdminService(Json json, Authenticator auth, PluginRegistry registry) {
        this.json = json;
        this.auth = auth;
        this.registry = registry;
    }

    @Override
    public void routing(HttpRules rules) {
        rules.get("/", this::list);
    }

    private void list(ServerRequest req, ServerResponse res) {
        auth.admin(req);
        ObjectNode root = json.object();
        root.put("spiVersion", ProviderPlugin.SPI_VERSION);
        ArrayNode data = root.putArray("data");
        for (LoadedPlugin p : registry.plugins()) {
            ObjectNode o = data.addObject();
            o.put("name", p.name());
            o.put("spiVersion", p.spiVersion());
            o.put("source", p.source());
            ArrayNode providers = o.putArray("providers");
            p.providers().forEach(d -> providers.add(descriptor(d)));
            ArrayNode executors = o.putArray("executors");
            p.executors().stream().map(ExecutorFactory::name).forEach(executors::add);
            ArrayNode restatement = o.putArray("restatementRules");
            p.restatementRules().forEach(r -> restatement.add(restatement(r)));
            ArrayNode errors = o.putArray("errorRules");
            // ER-3: a plugin rule's scope is acted on only when its provider's descriptor says so
            p.errorRules().forEach(r -> errors.add(OperatorErrorRules.write(r).put("scopeHonoured", scopeHonoured(r))));
            ArrayNode egress = o.putArray("egressBucketing");
            p.egressBucketing().forEach(e -> egress.add(egress(e)));
            // issue 27: what a plugin contributes to combos is listed with the rest of its contributions
            ArrayNode strategies = o.putArray("comboStrategies");
            p.comboStrategies().forEach(c -> strategies.add(c.name()));
        }
        ArrayNode failures = root.putArray("failures");
        for (PluginFailure f : registry.failures()) {
            ObjectNode o = failures.addObject().put("source", f.source()).put("reason", f.reason());
            ArrayNode refused = o.putArray("providers");
            f.providerIds().stream().sorted().forEach(refused::add);
            // issue 27: ids taken from the file and module names when none could be read from the plugin
            o.put("providersGuessed", f.providersGuessed());
        }
        ArrayNode builtins = root.putArray("builtinProviders");
        BuiltinProviders.ALL.forEach(d -> builtins.add(descriptor(d)));
        // issue 33: a provider id nobody declares is a custom OpenAI-compatible server; these are its connections' fields
        fields(root.putArray("customProviderConnectionFields"), ConnectionFieldCatalog.custom());
        json.send(res, 200, root);
    }

    private boolean scopeHonoured(ErrorRule rule) {
        return registry.descriptor(rule.provider())
                .or(() -> BuiltinProviders.ALL.stream().filter(d -> d.id().equals(rule.provider())).findFirst())
                .map(ProviderDescriptor::honorsRuleScope).orElse(false);
    }

    private ObjectNode descriptor(ProviderDescriptor d) {
        ObjectNode o = json.object();
        o.put("id", d.id());
        o.put("displayName", d.displayName());
        o.put("defaultClass", d.defaultClass().wireName());
        o.put("defaultBaseUrl", d.defaultBaseUrl());
        o.put("executor", d.executor());
        ArrayNode models = o.putArray("models");
        for (ModelInfo m : d.models()) {
            models.addObject().put("id", m.id()).put("kind", m.kind().name().toLowerCase(java.util.Locale.ROOT));
        }
        o.put("passthroughModels", d.passthroughModels());
        o.put("fullTextErrorRules", d.fullTextErrorRules());
        o.put("honorsRuleScope", d.honorsRuleScope());
        fields(o.putArray("connectionFields"), ConnectionFieldCatalog.of(d));
        return o;
    }

    private static void fields(ArrayNode out, java.util.List<ConnectionField> fields) {
        for (ConnectionField f : fields) {
            out.addObject().put("name", f.name()).put("type", f.type().name().toLowerCase(java.util.Locale.ROOT))
                    .put("label", f.label()).put("description", f.description());
        }
    }

    private ObjectNode restatement(RestatementRule r) {
        ObjectNode o = json.object();
        o.put("id", r.id());
        o.put("provider", r.provider());
        ArrayNode from = o.putArray("fromStatuses");
        r.fromStatuses().stream().sorted().forEach(from::add);
        o.put("toStatus", r.toStatus());
        ArrayNode markers = o.putArray("textMarkers");
        r.textMarkers().forEach(markers::add);
        ArrayNode excludes = o.putArray("excludeMarkers");
        r.excludeMarkers().forEach(excludes::add);
        o.put("defaultRetryAfterMs", r.defaultRetryAfterMs());
        return o;
    }

    private ObjectNode egress(EgressBucketing e) {
        ObjectNode o = json.object();
        o.put("name", e.name());
        ArrayNode providers = o.putArray("providers");
        e.providers().stream().sorted().forEach(providers::add);
        return o;
    }
}
