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
 * @param kind what the chunk carries (progress or not, for the watchdogs)
 */
public record StreamChunk(String id, String model, long created, List<ChunkChoice> choices, Usage usage,
        Map<String, String> extra, FrameKind kind) {

    /** Validates the fields and copies the collections. */
    public StreamChunk {
        requireNonNull(id, "id is null");
        requireNonNull(model, "model is null");
        requireNonNull(kind, "kind is null");
        choices = choices == null ? List.of() : List.copyOf(choices);
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    /**
     * A chunk whose kind follows from its contents ({@link FrameKind#of}).
     *
     * @param id the answer id
     * @param model the model
     * @param created epoch seconds
     * @param choices increments
     * @param usage usage, or null
     * @param extra other fields as raw JSON
     */
    public StreamChunk(String id, String model, long created, List<ChunkChoice> choices, Usage usage, Map<String, String> extra) {
        this(id, model, created, choices, usage, extra, FrameKind.of(choices == null ? List.of() : choices));
    }

    /**
     * A keep-alive frame.
     *
     * @param id the answer id
     * @param model the model
     * @return the heartbeat chunk
     */
    public static StreamChunk heartbeat(String id, String model) {
        return new StreamChunk(id, model, 0, List.of(), null, Map.of(), FrameKind.HEARTBEAT);
    }
}
