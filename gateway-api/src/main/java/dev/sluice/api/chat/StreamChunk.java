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

    /**
     * A builder; fields the SPI adds later get defaults here, so code using it keeps linking.
     *
     * @param id the answer id
     * @param model the model
     * @return the builder (created 0, no choices, usage or extra fields; the kind follows from
     *     the choices unless set)
     */
    public static Builder builder(String id, String model) {
        return new Builder(id, model);
    }

    /**
     * A builder holding this chunk's values.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        return new Builder(id, model).created(created).choices(choices).usage(usage).extra(extra).kind(kind);
    }

    /**
     * The same chunk with other choices; the kind is kept.
     *
     * @param changed the increments
     * @return the copy
     */
    public StreamChunk withChoices(List<ChunkChoice> changed) {
        return new StreamChunk(id, model, created, changed, usage, extra, kind);
    }

    /**
     * The same chunk with other usage.
     *
     * @param changed token usage, or null
     * @return the copy
     */
    public StreamChunk withUsage(Usage changed) {
        return new StreamChunk(id, model, created, choices, changed, extra, kind);
    }

    /** Builds a {@link StreamChunk}; not thread-safe. */
    public static final class Builder {
        private final String id;
        private final String model;
        private long created;
        private List<ChunkChoice> choices = List.of();
        private Usage usage;
        private Map<String, String> extra = Map.of();
        private FrameKind kind;

        private Builder(String id, String model) {
            this.id = id;
            this.model = model;
        }

        /**
         * @param value creation time in epoch seconds
         * @return this builder
         */
        public Builder created(long value) {
            created = value;
            return this;
        }

        /**
         * @param value increments
         * @return this builder
         */
        public Builder choices(List<ChunkChoice> value) {
            choices = value;
            return this;
        }

        /**
         * @param value token usage, or null
         * @return this builder
         */
        public Builder usage(Usage value) {
            usage = value;
            return this;
        }

        /**
         * @param value other top-level fields as raw JSON
         * @return this builder
         */
        public Builder extra(Map<String, String> value) {
            extra = value;
            return this;
        }

        /**
         * @param value what the chunk carries; by default it follows from the choices
         * @return this builder
         */
        public Builder kind(FrameKind value) {
            kind = value;
            return this;
        }

        /**
         * @return the chunk
         */
        public StreamChunk build() {
            List<ChunkChoice> c = choices == null ? List.of() : choices;
            return new StreamChunk(id, model, created, c, usage, extra, kind != null ? kind : FrameKind.of(c));
        }
    }
}
