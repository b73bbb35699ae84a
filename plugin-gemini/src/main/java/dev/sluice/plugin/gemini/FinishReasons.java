package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import java.util.Map;
import java.util.Set;

/**
 * Gemini {@code finishReason} → OpenAI {@code finish_reason}. Where the mapping loses information
 * (anything but {@code STOP} and {@code MAX_TOKENS}), the choice also carries Gemini's own value as
 * {@code native_finish_reason}, so a client or a log can tell a safety block from a recitation
 * block, or a malformed function call from a normal stop.
 */
final class FinishReasons {

    /** OpenAI's finish reasons this mapping produces. */
    static final String STOP = "stop";
    static final String LENGTH = "length";
    static final String CONTENT_FILTER = "content_filter";
    static final String TOOL_CALLS = "tool_calls";

    /** The choice field that keeps Gemini's own finish (or prompt block) reason. */
    static final String NATIVE_FIELD = "native_finish_reason";

    /** Answers withheld or cut by Google's filters: safety, recitation, blocklists, personal data, images. */
    private static final Set<String> FILTERED = Set.of("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT",
            "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION");

    private FinishReasons() {
    }

    /**
     * Maps a finish reason.
     *
     * @param gemini Gemini's {@code finishReason}, or null while the candidate is not finished
     * @param hasToolCalls whether the candidate called a function
     * @return the OpenAI finish reason, or null for null
     */
    static String map(String gemini, boolean hasToolCalls) {
        if (gemini == null) {
            return null;
        }
        String mapped;
        if (gemini.equals("MAX_TOKENS")) {
            mapped = LENGTH;
        } else if (FILTERED.contains(gemini)) {
            mapped = CONTENT_FILTER;
        } else {
            // STOP, FINISH_REASON_UNSPECIFIED, OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL,
            // UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS and reasons added later: the model stopped
            // without a filter cutting it; native_finish_reason says which
            mapped = STOP;
        }
        return hasToolCalls && mapped.equals(STOP) ? TOOL_CALLS : mapped;
    }

    /**
     * The choice extra that keeps Gemini's reason when the mapping lost it.
     *
     * @param gemini Gemini's reason, or null
     * @return {@code {"native_finish_reason": "<reason>"}} as raw JSON, or an empty map
     */
    static Map<String, String> nativeExtra(String gemini) {
        if (gemini == null || gemini.equals("STOP") || gemini.equals("MAX_TOKENS")) {
            return Map.of();
        }
        return Map.of(NATIVE_FIELD, Json.quote(gemini));
    }
}
