package dev.sluice.runtime.catalog;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ModelFacts;
import java.util.Map;

/**
 * One model of the catalog: its merged figures and where each came from.
 *
 * @param id {@code provider/model}
 * @param facts the merged figures
 * @param sources figure name to its source ({@code built-in}, {@code plugin:<name>}, {@code config},
 *     {@code settings.modelPrices} or {@code operator}); only known figures appear
 * @param override the operator's own figures ({@code PUT /api/models/{id}}), {@link ModelFacts#UNKNOWN} when none
 */
public record CatalogEntry(String id, ModelFacts facts, Map<String, String> sources, ModelFacts override) {

    /** Validates and copies. */
    public CatalogEntry {
        requireNonNull(id, "id is null");
        requireNonNull(facts, "facts is null");
        sources = Map.copyOf(sources);
        override = override == null ? ModelFacts.UNKNOWN : override;
    }

    /**
     * The known figures, in the order answers show them.
     *
     * @return figure name to value
     */
    public Map<String, Object> figures() {
        return Figures.known(facts);
    }

    /**
     * The operator's figures.
     *
     * @return figure name to value
     */
    public Map<String, Object> overridden() {
        return Figures.known(override);
    }
}
