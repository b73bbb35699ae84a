package dev.sluice.api;

import static java.util.Objects.requireNonNull;

/**
 * A model a provider is known to serve, by its upstream id (e.g. {@code gpt-4o-mini}); clients
 * address it as {@code provider/id}.
 *
 * @param id upstream model id, non-blank
 * @param kind what the model serves
 * @param facts its context window, output limit, prices and tier as far as the provider knows them
 *     (issue 34; {@link ModelFacts#UNKNOWN} when it knows none); operators override them
 */
public record ModelInfo(String id, ModelKind kind, @Experimental("the model catalog is new") ModelFacts facts) {

    /** Validates the fields. */
    public ModelInfo {
        requireNonNull(id, "id is null");
        requireNonNull(kind, "kind is null");
        if (id.isBlank()) {
            throw new IllegalArgumentException("model id is blank");
        }
        facts = facts == null ? ModelFacts.UNKNOWN : facts;
    }

    /**
     * A model of which nothing more is known (the form of SPI 1.0).
     *
     * @param id upstream model id
     * @param kind what the model serves
     */
    public ModelInfo(String id, ModelKind kind) {
        this(id, kind, ModelFacts.UNKNOWN);
    }

    /**
     * This model with what is known of it (issue 34), e.g.
     * {@code ModelInfo.chat("acme-1").withFacts(ModelFacts.builder().contextWindow(128_000L).build())}.
     *
     * @param value the facts
     * @return the copy
     */
    @Experimental("the model catalog is new")
    public ModelInfo withFacts(ModelFacts value) {
        return new ModelInfo(id, kind, value);
    }

    /**
     * A chat model.
     *
     * @param id upstream model id
     * @return the model info
     */
    public static ModelInfo chat(String id) {
        return new ModelInfo(id, ModelKind.CHAT);
    }

    /**
     * An embedding model.
     *
     * @param id upstream model id
     * @return the model info
     */
    public static ModelInfo embedding(String id) {
        return new ModelInfo(id, ModelKind.EMBEDDING);
    }
}
