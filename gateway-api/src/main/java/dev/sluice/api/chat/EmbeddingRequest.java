package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

import java.util.Map;

/**
 * An embeddings request (OpenAI shape, passed through).
 *
 * @param model the model id (the upstream id when handed to an executor)
 * @param inputJson the {@code input} value as raw JSON (a string, or an array of strings or tokens)
 * @param extra every other top-level parameter as raw JSON (e.g. {@code dimensions}, {@code encoding_format})
 */
public record EmbeddingRequest(String model, String inputJson, Map<String, String> extra) {

    /** Validates the fields and copies the map. */
    public EmbeddingRequest {
        requireNonNull(model, "model is null");
        requireNonNull(inputJson, "inputJson is null");
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * The same request for another model id.
     *
     * @param otherModel the model id
     * @return the copy
     */
    public EmbeddingRequest withModel(String otherModel) {
        return new EmbeddingRequest(otherModel, inputJson, extra);
    }
}
