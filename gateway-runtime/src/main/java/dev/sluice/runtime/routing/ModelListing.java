package dev.sluice.runtime.routing;

import dev.sluice.api.ModelInfo;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The models a caller can route to (API-2): the combos, then every model of each provider with an
 * enabled connection the caller may use — the provider's declared models and those its connections
 * declare in {@code providerSpecificData.models} (custom providers list theirs this way), and
 * those its connections' upstreams listed when asked (model discovery, issue 32). Everything is
 * read from memory: listing never calls an upstream.
 */
public final class ModelListing {

    private static final System.Logger LOG = System.getLogger(ModelListing.class.getName());

    private final ComboStore combos;
    private final ProviderCatalog catalog;
    private final ConnectionStore connections;
    private final ModelResolver resolver;
    private final Function<String, Map<String, Object>> jsonObjectParser;
    private final Supplier<Map<String, String>> aliases;
    private final UnaryOperator<String> aliasTargets;
    private final Function<String, List<String>> discovered;
    private final java.util.function.BooleanSupplier autoCombos;
    private final Set<String> autoComboNames;

    private ModelListing(Builder b) {
        this.autoCombos = b.autoCombos;
        this.autoComboNames = new java.util.TreeSet<>(b.autoComboNames);
        this.aliases = b.aliases;
        this.aliasTargets = b.aliasTargets;
        this.discovered = b.discovered;
        this.combos = b.combos;
        this.catalog = b.catalog;
        this.connections = b.connections;
        this.resolver = b.resolver;
        this.jsonObjectParser = b.jsonObjectParser;
    }

    /**
     * Starts a listing with what every one needs; the rest has defaults (issue 35: one way to make one).
     *
     * @param combos the combos
     * @param catalog the providers
     * @param connections the connections
     * @param resolver resolves a bare model name like chat does
     * @param jsonObjectParser parses a connection's providerSpecificData JSON into plain Java values
     * @param aliases the operators' exact model aliases (alias → target), listed as models
     * @return the builder
     */
    public static Builder builder(ComboStore combos, ProviderCatalog catalog, ConnectionStore connections, ModelResolver resolver,
            Function<String, Map<String, Object>> jsonObjectParser, Supplier<Map<String, String>> aliases) {
        return new Builder(combos, catalog, connections, resolver, jsonObjectParser, aliases);
    }

    /** What a listing is made of; the optional parts default to the exact aliases, nothing discovered, no auto combos. */
    public static final class Builder {
        private final ComboStore combos;
        private final ProviderCatalog catalog;
        private final ConnectionStore connections;
        private final ModelResolver resolver;
        private final Function<String, Map<String, Object>> jsonObjectParser;
        private final Supplier<Map<String, String>> aliases;
        private UnaryOperator<String> aliasTargets;
        private Function<String, List<String>> discovered = id -> List.of();
        private java.util.function.BooleanSupplier autoCombos = () -> false;
        private Set<String> autoComboNames = Set.of();

        private Builder(ComboStore combos, ProviderCatalog catalog, ConnectionStore connections, ModelResolver resolver,
                Function<String, Map<String, Object>> jsonObjectParser, Supplier<Map<String, String>> aliases) {
            this.combos = combos;
            this.catalog = catalog;
            this.connections = connections;
            this.resolver = resolver;
            this.jsonObjectParser = jsonObjectParser;
            this.aliases = aliases;
            this.aliasTargets = m -> aliases.get().getOrDefault(m, m);
        }

        /**
         * @param targets what chat routes instead of a client's model (every alias rule, API-1); default: the exact aliases
         * @return this
         */
        public Builder aliasTargets(UnaryOperator<String> targets) {
            this.aliasTargets = targets;
            return this;
        }

        /**
         * @param ids the model ids a connection's upstream listed (issue 32), by connection id; default: none
         * @return this
         */
        public Builder discovered(Function<String, List<String>> ids) {
            this.discovered = ids;
            return this;
        }

        /**
         * @param enabled whether the virtual {@code auto} combos of issue 34 exist; default: they do not
         * @param names their names
         * @return this
         */
        public Builder autoCombos(java.util.function.BooleanSupplier enabled, Set<String> names) {
            this.autoCombos = enabled;
            this.autoComboNames = names;
            return this;
        }

        /** @return the listing */
        public ModelListing build() {
            return new ModelListing(this);
        }
    }

    /**
     * Every model id the caller can route to ({@code provider/model}, or a combo's name), with its
     * owner (the provider, or {@code combo}), in listing order.
     *
     * @param caller the caller
     * @return id → owner
     */
    public Map<String, String> routable(Caller caller) {
        Map<String, String> models = new LinkedHashMap<>();
        // API-2: combos are models clients can name
        for (Combo c : combos.list()) {
            models.put(c.name(), "combo");
        }
        // API-1, API-2: an operator's exact alias is a model clients can name
        aliases.get().keySet().forEach(a -> models.putIfAbsent(a, "alias"));
        Map<String, String> served = served(caller);
        // issue 34: the virtual auto combos, over the models this caller may use
        if (!served.isEmpty() && autoCombos.getAsBoolean()) {
            autoComboNames.forEach(n -> models.putIfAbsent(n, "combo"));
        }
        served.forEach(models::putIfAbsent);
        if (!caller.models().all()) {
            // issue 33: a key limited to some models lists only those (an alias when it or its target is allowed)
            models.keySet().removeIf(id -> !allowed(id, caller));
        }
        return models;
    }

    /** Whether a key limited to some models may name this one, directly or as an alias of an allowed one. */
    private boolean allowed(String id, Caller caller) {
        return caller.models().allows(id) || caller.models().allows(aliasTargets.apply(id));
    }

    /**
     * The chat models of providers the caller may use ({@code provider/model}), in listing order:
     * the targets of the virtual {@code auto} combos (issue 34). A model a descriptor declares as an
     * embedding model is left out.
     *
     * @param caller the caller
     * @return the model ids
     */
    public List<String> chatModels(Caller caller) {
        List<String> out = new java.util.ArrayList<>();
        served(caller).forEach((id, provider) -> {
            String model = id.substring(provider.length() + 1);
            boolean embedding = catalog.find(provider).map(p -> p.descriptor().models().stream()
                    .anyMatch(m -> m.id().equals(model) && m.kind() == dev.sluice.api.ModelKind.EMBEDDING)).orElse(false);
            if (!embedding && caller.models().allows(id)) {
                out.add(id);
            }
        });
        return out;
    }

    /** The provider models the caller may use: id to provider. */
    private Map<String, String> served(Caller caller) {
        Map<String, String> models = new LinkedHashMap<>();
        List<Connection> all = connections.list();
        for (Provider p : catalog.withConnections()) {
            List<Connection> enabled = all.stream().filter(c -> c.provider().equals(p.id()) && c.enabled() && caller.mayUse(c.id())).toList();
            if (enabled.isEmpty()) {
                continue;
            }
            for (ModelInfo m : p.descriptor().models()) {
                models.putIfAbsent(p.id() + "/" + m.id(), p.id());
            }
            for (Connection c : enabled) {
                for (String m : declaredModels(c)) {
                    models.putIfAbsent(p.id() + "/" + m, p.id());
                }
            }
            for (Connection c : enabled) {
                for (String m : discovered.apply(c.id())) {
                    models.putIfAbsent(p.id() + "/" + m, p.id());
                }
            }
        }
        return models;
    }

    /**
     * The owner of a model a chat request could name: every listed id, and every id chat would
     * route (an alias's target, a combo, {@code provider/anything} of a passthrough provider, a
     * bare id a provider lists or serves by pattern). Empty exactly when chat answers 404
     * ({@code model_not_found}); a refused plugin's provider throws its refusal, as chat does.
     *
     * @param id the model id
     * @param caller the caller
     * @return the owner (a provider id, {@code combo} or {@code alias}), or empty
     */
    public Optional<String> owner(String id, Caller caller) {
        if (!caller.models().all() && !allowed(id, caller)) {
            return Optional.empty();
        }
        Map<String, String> routable = routable(caller);
        String owner = routable.get(id);
        if (owner != null) {
            return Optional.of(owner);
        }
        // API-1: an alias (exact or pattern) is routed as its target, which is not aliased again
        String model = aliasTargets.apply(id);
        boolean aliased = !model.equals(id);
        if (model.indexOf('/') < 0 && combos.find(model).isPresent()) {
            return Optional.of(aliased ? "alias" : "combo");
        }
        Optional<Route> route = resolver.resolve(model);
        if (route.isEmpty()) {
            resolver.refusal(model).ifPresent(e -> {
                throw e;
            });
            return Optional.empty();
        }
        return Optional.of(aliased ? "alias" : route.get().provider().id());
    }

    private Set<String> declaredModels(Connection c) {
        Set<String> out = new LinkedHashSet<>();
        if (c.providerSpecificDataJson() == null) {
            return out;
        }
        Object models;
        try {
            models = jsonObjectParser.apply(c.providerSpecificDataJson()).get("models");
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "connection " + c.id() + " has unreadable providerSpecificData");
            return out;
        }
        if (models instanceof List<?> list) {
            for (Object m : list) {
                if (m instanceof String s && !s.isBlank()) {
                    out.add(s);
                }
            }
        }
        return out;
    }
}
