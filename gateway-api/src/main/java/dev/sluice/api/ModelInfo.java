package dev.sluice.api;

import static java.util.Objects.requireNonNull;

/**
 * A model a provider is known to serve, by its upstream id (e.g. {@code gpt-4o-mini}); clients
 * address it as {@code provider/id}.
 *
 * @param id upstream model id, non-blank
 * @param kind what the model serves
 */
public record ModelInfo(String id, ModelKind kind) {

    /** Validates the fields. */
    public ModelInfo {
        requireNonNull(id, "id is null");
        requireNonNull(kind, "kind is null");
        if (id.isBlank()) {
            throw new IllegalArgumentException("model id is blank");
        }
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
