package dev.sluice.api.chat;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * A complete (non-streaming) answer in canonical form.
 *
 * @param id the upstream's answer id
 * @param model the model that answered
 * @param created creation time in epoch seconds
 * @param choices alternatives
 * @param usage token usage, or null when not reported
 * @param extra other top-level fields of the upstream answer, as raw JSON, kept verbatim
 *     (e.g. {@code system_fingerprint})
 */
public record ChatResponse(String id, String model, long created, List<Choice> choices, Usage usage, Map<String, String> extra) {

    /** Validates the fields and copies the collections. */
    public ChatResponse {
        requireNonNull(id, "id is null");
        requireNonNull(model, "model is null");
        choices = List.copyOf(requireNonNull(choices, "choices is null"));
        extra = extra == null ? Map.of() : Map.copyOf(extra);
    }
}
