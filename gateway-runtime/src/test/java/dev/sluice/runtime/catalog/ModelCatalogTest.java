package dev.sluice.runtime.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ModelFacts;
import dev.sluice.runtime.settings.ModelPrices;
import dev.sluice.runtime.store.SettingsStore;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The model catalog's layers (issue 34): descriptor < config < modelPrices < operator, each figure with its source. */
class ModelCatalogTest {

    /** A settings table in memory. */
    static final class MemoryStore implements SettingsStore {
        final Map<String, String> values = new HashMap<>();

        @Override
        public Optional<String> get(String key) {
            return Optional.ofNullable(values.get(key));
        }

        @Override
        public void put(String key, String json) {
            values.put(key, json);
        }
    }

    private final MemoryStore store = new MemoryStore();
    private final AtomicReference<ModelPrices> prices = new AtomicReference<>(ModelPrices.NONE);

    private ModelCatalog catalog(Map<String, Map<String, String>> config) {
        Map<String, ModelCatalog.Declared> declared = Map.of("openai/gpt-4o", new ModelCatalog.Declared(ModelFacts.builder()
                .contextWindow(128_000L).maxOutputTokens(16_384L).inputPerMillion(2.5).outputPerMillion(10.0).build(), "built-in"));
        return new ModelCatalog(declared, config, prices::get, store);
    }

    @Test
    void eachFigureComesFromTheHighestLayerThatKnowsIt_issue34() {
        ModelCatalog c = catalog(Map.of("openai/gpt-4o", Map.of("maxOutputTokens", "8000", "tier", "3")));
        Map<String, Object> op = new LinkedHashMap<>();
        op.put("inputPerMillion", 2);
        CatalogEntry e = c.put("openai/gpt-4o", op);
        assertThat(e.figures()).containsEntry("contextWindow", 128_000L).containsEntry("maxOutputTokens", 8_000L)
                .containsEntry("inputPerMillion", 2.0).containsEntry("outputPerMillion", 10.0).containsEntry("tier", 3);
        assertThat(e.sources()).containsEntry("contextWindow", "built-in").containsEntry("maxOutputTokens", "config")
                .containsEntry("inputPerMillion", "operator").containsEntry("outputPerMillion", "built-in").containsEntry("tier", "config");
        assertThat(e.overridden()).containsOnlyKeys("inputPerMillion");
    }

    @Test
    void theModelPricesSettingPricesModelsAndTheOperatorStillWins_issue34() {
        ModelCatalog c = catalog(Map.of());
        var settings = new dev.sluice.runtime.settings.GeneralSettingsService(new MemoryStore(), null, Map.of(), 0);
        settings.patch(new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().set("modelPrices",
                new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().set("acme/m",
                        new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode().put("input", 1).put("output", 4))));
        prices.set(settings.modelPrices());
        assertThat(c.price("acme", "m").input()).isEqualTo(1);
        assertThat(c.find("acme/m").orElseThrow().sources()).containsEntry("inputPerMillion", "settings.modelPrices");
        c.put("acme/m", Map.of("outputPerMillion", 5));
        assertThat(c.price("acme", "m").output()).isEqualTo(5);
        assertThat(c.price("acme", "unknown")).isNull();
    }

    @Test
    void overridesAreStoredReloadedAndRemoved_issue34() {
        ModelCatalog c = catalog(Map.of());
        c.put("acme/m", Map.of("contextWindow", 32_000));
        ModelCatalog other = catalog(Map.of());
        assertThat(other.facts("acme", "m").contextWindow()).as("another instance sharing the store").isEqualTo(32_000L);
        assertThat(c.remove("acme/m")).isTrue();
        assertThat(c.remove("acme/m")).isFalse();
        assertThat(c.find("acme/m")).isEmpty();
        other.reload();
        assertThat(other.facts("acme", "m")).isEqualTo(ModelFacts.UNKNOWN);
    }

    @Test
    void badFiguresAreRefusedNamingThem_issue34() {
        ModelCatalog c = catalog(Map.of());
        assertThatThrownBy(() -> c.put("acme/m", Map.of("contextWindow", 0))).isInstanceOf(CatalogException.class)
                .hasMessageContaining("acme/m.contextWindow");
        assertThatThrownBy(() -> c.put("acme/m", Map.of("contextWindow", 1.5))).hasMessageContaining("whole number");
        assertThatThrownBy(() -> c.put("acme/m", Map.of("inputPerMillion", -1))).hasMessageContaining("acme/m.inputPerMillion");
        assertThatThrownBy(() -> c.put("acme/m", Map.of("speed", 1))).hasMessageContaining("not a model figure");
        assertThatThrownBy(() -> c.put("no-slash", Map.of())).hasMessageContaining("provider/model");
        assertThatThrownBy(() -> catalog(Map.of("acme/m", Map.of("tier", "big")))).isInstanceOf(CatalogException.class)
                .hasMessageContaining("models.acme/m.tier");
    }

    @Test
    void anUnreadableStoredDocumentIsIgnored_issue34() {
        store.put(ModelCatalog.STORE_KEY, "{\"acme/m\":{\"contextWindow\":-5}}");
        assertThat(catalog(Map.of()).find("acme/m")).isEmpty();
    }
}
