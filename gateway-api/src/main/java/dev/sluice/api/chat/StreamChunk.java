package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * One increment of a streaming answer.
 *
 * @param id the answer id (the same on every chunk)
 * @param model the model that answers
 * @param created creation time in epoch seconds
 * @param choices increments; empty on a usage-only chunk
 * @param usage token usage, usually on the last chunk only, else null
 * @param extra other top-level fields of the upstream chunk, as raw JSON, kept verbatim
 */
public record StreamChunk(String id, String model, long created, List<ChunkChoice> choices, Usage usage, Map<String, String> extra) {

    /** Validates the fields and copies the collections. */
    public StreamChunk {
        requireNonNull(id, "id is null");
        requireNonNull(model, "model is null");
        choices = choices == null ? List.of() : List.copyOf(choices);
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }
}
