package dev.sluice.runtime.catalog;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.ModelFacts;
import dev.sluice.runtime.settings.ModelPrices;
import dev.sluice.runtime.store.SettingsStore;
import java.io.IOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The model catalog (issue 34): per {@code provider/model}, figures merged from four layers, each
 * figure from the highest layer that knows it — the providers' descriptors (lowest), the config
 * file's {@code models:} section, the {@code modelPrices} setting (prices only), and the operators'
 * overrides ({@code PUT /api/models/{provider/model}}, stored in the settings table under
 * {@value #STORE_KEY} so that instances sharing a database share them). Reads come from an
 * immutable snapshot, rebuilt when a layer changes: a lookup on the request path is one map read.
 */
public final class ModelCatalog {

    /** The settings-table key of the operators' overrides. */
    public static final String STORE_KEY = "models";
    /** The most models operators may override (a settings document, not a price list to mirror). */
    public static final int MAX_OVERRIDES = 10_000;
    /** Source of a figure a provider's descriptor declares for a built-in provider. */
    public static final String BUILT_IN = "built-in";
    /** Source of a figure from the config file. */
    public static final String CONFIG = "config";
    /** Source of a price from {@code modelPrices} of {@code /api/settings}. */
    public static final String SETTINGS_PRICES = "settings.modelPrices";
    /** Source of an operator's figure. */
    public static final String OPERATOR = "operator";

    private static final System.Logger LOG = System.getLogger(ModelCatalog.class.getName());
    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}/[^\\s/][^\\s]{0,199}");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /**
     * A layer's figures for one model and their source.
     *
     * @param facts the figures
     * @param source where they come from
     */
    public record Declared(ModelFacts facts, String source) {
    }

    private final Map<String, Declared> declared;
    private final Map<String, ModelFacts> configured;
    private final Supplier<ModelPrices> prices;
    private final SettingsStore store;
    private final Object writeLock = new Object();
    private volatile Map<String, ModelFacts> overrides = Map.of();
    private volatile Snapshot snapshot;

    private record Snapshot(ModelPrices prices, Map<String, ModelFacts> overrides, Map<String, CatalogEntry> entries) {
    }

    /**
     * Creates the catalog and loads the stored overrides (an unreadable document is ignored with a
     * warning).
     *
     * @param declared what descriptors declare, by {@code provider/model}
     * @param configured the config file's {@code models:} section: {@code provider/model} to figure
     *     name to value (text or numbers)
     * @param prices the {@code modelPrices} setting, read live
     * @param store the settings table
     * @throws CatalogException naming a bad figure of the config file
     */
    public ModelCatalog(Map<String, Declared> declared, Map<String, ? extends Map<String, ?>> configured, Supplier<ModelPrices> prices,
            SettingsStore store) {
        this.declared = Map.copyOf(declared);
        Map<String, ModelFacts> cfg = new LinkedHashMap<>();
        configured.forEach((id, figures) -> cfg.put(checkedId(id, "models." + id), Figures.read(figures, "models." + id)));
        this.configured = Collections.unmodifiableMap(cfg);
        this.prices = prices;
        this.store = store;
        reload();
    }

    /** Reads the stored overrides again (at start, and when another instance sharing the database changed them). */
    public void reload() {
        synchronized (writeLock) {
            Map<String, ModelFacts> stored = new LinkedHashMap<>();
            String json = store.get(STORE_KEY).orElse(null);
            if (json != null) {
                try {
                    Map<String, Map<String, Object>> tree = MAPPER.readValue(json, new TypeReference<>() { });
                    if (tree != null) {
                        tree.forEach((id, figures) -> stored.put(id, Figures.read(figures, id)));
                    }
                } catch (IOException | IllegalArgumentException e) {
                    LOG.log(System.Logger.Level.WARNING, "stored model catalog overrides ignored (" + e.getMessage() + ")");
                    stored.clear();
                }
            }
            overrides = Collections.unmodifiableMap(stored);
            snapshot = null;
        }
    }

    /**
     * The merged figures of a model.
     *
     * @param provider the provider id
     * @param model the upstream model
     * @return the figures ({@link ModelFacts#UNKNOWN} when none are known)
     */
    public ModelFacts facts(String provider, String model) {
        if (provider == null || model == null) {
            return ModelFacts.UNKNOWN;
        }
        CatalogEntry e = current().entries().get(provider + "/" + model);
        return e == null ? ModelFacts.UNKNOWN : e.facts();
    }

    /**
     * A model's entry.
     *
     * @param id {@code provider/model}
     * @return the entry, or empty when no layer knows the model
     */
    public Optional<CatalogEntry> find(String id) {
        return Optional.ofNullable(current().entries().get(id));
    }

    /**
     * Every model some layer knows, sorted by id.
     *
     * @return the entries
     */
    public List<CatalogEntry> entries() {
        return List.copyOf(current().entries().values());
    }

    /**
     * The usage price of a model: its catalog prices, when both input and output prices are known.
     *
     * @param provider the provider
     * @param model the upstream model
     * @return the price, or null when the model is unpriced
     */
    public ModelPrices.Price price(String provider, String model) {
        ModelFacts f = facts(provider, model);
        if (f.inputPerMillion() == null || f.outputPerMillion() == null) {
            return null;
        }
        return new ModelPrices.Price(f.inputPerMillion(), f.outputPerMillion(), f.cachedInputPerMillion());
    }

    /**
     * Replaces the operator's figures of one model; stored first, then in force.
     *
     * @param id {@code provider/model}
     * @param figures figure name to value; the figures left out fall back to the lower layers
     * @return the model's new entry
     * @throws CatalogException naming a bad id or figure
     */
    public CatalogEntry put(String id, Map<String, ?> figures) {
        checkedId(id, "model");
        ModelFacts facts = Figures.read(figures, id);
        synchronized (writeLock) {
            Map<String, ModelFacts> next = new LinkedHashMap<>(overrides);
            next.remove(id);
            if (!facts.equals(ModelFacts.UNKNOWN)) {
                if (next.size() >= MAX_OVERRIDES) {
                    throw new CatalogException("model", "At most " + MAX_OVERRIDES + " models may be overridden.");
                }
                next.put(id, facts);
            }
            save(next);
        }
        return find(id).orElseGet(() -> new CatalogEntry(id, ModelFacts.UNKNOWN, Map.of(), ModelFacts.UNKNOWN));
    }

    /**
     * Drops the operator's figures of one model.
     *
     * @param id {@code provider/model}
     * @return whether there were any
     */
    public boolean remove(String id) {
        synchronized (writeLock) {
            if (!overrides.containsKey(id)) {
                return false;
            }
            Map<String, ModelFacts> next = new LinkedHashMap<>(overrides);
            next.remove(id);
            save(next);
            return true;
        }
    }

    private void save(Map<String, ModelFacts> next) {
        Map<String, Map<String, Object>> tree = new LinkedHashMap<>();
        next.forEach((k, f) -> tree.put(k, Figures.known(f)));
        try {
            store.put(STORE_KEY, MAPPER.writeValueAsString(tree));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        overrides = Collections.unmodifiableMap(next);
        snapshot = null;
    }

    private Snapshot current() {
        Snapshot s = snapshot;
        ModelPrices p = prices.get();
        Map<String, ModelFacts> o = overrides;
        if (s != null && s.prices() == p && s.overrides() == o) {
            return s;
        }
        s = new Snapshot(p, o, merge(p, o));
        snapshot = s;
        return s;
    }

    private Map<String, CatalogEntry> merge(ModelPrices p, Map<String, ModelFacts> o) {
        Set<String> ids = new java.util.TreeSet<>();
        ids.addAll(declared.keySet());
        ids.addAll(configured.keySet());
        ids.addAll(p.all().keySet());
        ids.addAll(o.keySet());
        Map<String, CatalogEntry> out = new LinkedHashMap<>();
        for (String id : ids) {
            ModelFacts.Builder b = ModelFacts.builder();
            Map<String, String> sources = new LinkedHashMap<>();
            Declared d = declared.get(id);
            if (d != null) {
                layer(b, sources, d.facts(), d.source());
            }
            layer(b, sources, configured.get(id), CONFIG);
            ModelPrices.Price price = p.all().get(id);
            if (price != null) {
                layer(b, sources, ModelFacts.builder().inputPerMillion(price.input()).outputPerMillion(price.output())
                        .cachedInputPerMillion(price.cachedInput()).build(), SETTINGS_PRICES);
            }
            layer(b, sources, o.get(id), OPERATOR);
            out.put(id, new CatalogEntry(id, b.build(), sources, o.get(id)));
        }
        return Collections.unmodifiableMap(out);
    }

    private static void layer(ModelFacts.Builder b, Map<String, String> sources, ModelFacts facts, String source) {
        if (facts == null) {
            return;
        }
        for (Map.Entry<String, Object> f : Figures.known(facts).entrySet()) {
            Figures.set(b, f.getKey(), f.getValue());
            sources.put(f.getKey(), source);
        }
    }

    private static String checkedId(String id, String path) {
        if (id == null || !ID.matcher(id).matches()) {
            throw new CatalogException(path, "'" + id + "' is not a model id: use provider/model (e.g. openai/gpt-4o).");
        }
        return id;
    }

    /**
     * The figures descriptors declare, by {@code provider/model}; the first provider declaring a
     * model wins (built-in providers come first).
     *
     * @param providers the providers
     * @return the declared layer
     */
    public static Map<String, Declared> declaredBy(List<dev.sluice.runtime.routing.Provider> providers) {
        Map<String, Declared> out = new LinkedHashMap<>();
        for (dev.sluice.runtime.routing.Provider p : providers) {
            String source = dev.sluice.runtime.routing.Provider.BUILT_IN.equals(p.origin()) ? BUILT_IN : "plugin:" + p.origin();
            for (dev.sluice.api.ModelInfo m : p.descriptor().models()) {
                if (!m.facts().equals(ModelFacts.UNKNOWN)) {
                    out.putIfAbsent(p.id() + "/" + m.id(), new Declared(m.facts(), source));
                }
            }
        }
        return out;
    }
}
