package dev.sluice.runtime.telemetry;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.Usage;
import java.io.IOException;

/**
 * The tokens one request used, as far as the upstream reported them; a null count is unknown, not
 * zero. Reads the three usage shapes Sluice relays: OpenAI chat ({@code prompt_tokens},
 * {@code completion_tokens}, {@code *_details}), Responses ({@code input_tokens},
 * {@code output_tokens}, {@code *_details}) and Anthropic ({@code input_tokens} without the cache,
 * {@code cache_read_input_tokens}, {@code cache_creation_input_tokens}).
 *
 * @param prompt prompt (input) tokens, cached ones included
 * @param completion completion (output) tokens, reasoning included
 * @param cached prompt tokens read from the upstream's cache
 * @param reasoning completion tokens spent on reasoning
 */
public record TokenCounts(Long prompt, Long completion, Long cached, Long reasoning) {

    /** Nothing known. */
    public static final TokenCounts UNKNOWN = new TokenCounts(null, null, null, null);

    private static final ObjectMapper MAPPER = dev.sluice.runtime.io.JsonMappers.create();

    /** @return whether any count is known */
    public boolean known() {
        return prompt != null || completion != null || cached != null || reasoning != null;
    }

    /**
     * This, with every count the other knows taken from it (a later usage report wins, field by field).
     *
     * @param later the later report
     * @return the merge
     */
    public TokenCounts then(TokenCounts later) {
        if (later == null || !later.known()) {
            return this;
        }
        return new TokenCounts(later.prompt != null ? later.prompt : prompt, later.completion != null ? later.completion : completion,
                later.cached != null ? later.cached : cached, later.reasoning != null ? later.reasoning : reasoning);
    }

    /**
     * The counts of a canonical usage (its details travel as raw JSON in {@code extra}).
     *
     * @param u the usage, or null
     * @return the counts
     */
    public static TokenCounts of(Usage u) {
        if (u == null) {
            return UNKNOWN;
        }
        Long cached = null;
        Long reasoning = null;
        String prompt = u.extra().get("prompt_tokens_details");
        if (prompt != null) {
            cached = count(parse(prompt), "cached_tokens");
        }
        String completion = u.extra().get("completion_tokens_details");
        if (completion != null) {
            reasoning = count(parse(completion), "reasoning_tokens");
        }
        return new TokenCounts(u.promptTokens(), u.completionTokens(), cached, reasoning);
    }

    /**
     * The counts of a {@code usage} JSON object in any of the three shapes.
     *
     * @param usage the object, or null
     * @return the counts
     */
    public static TokenCounts ofJson(JsonNode usage) {
        if (usage == null || !usage.isObject()) {
            return UNKNOWN;
        }
        Long prompt = count(usage, "prompt_tokens");
        Long completion = count(usage, "completion_tokens");
        Long cached = count(usage.path("prompt_tokens_details"), "cached_tokens");
        Long reasoning = count(usage.path("completion_tokens_details"), "reasoning_tokens");
        if (prompt == null) {
            prompt = count(usage, "input_tokens");
            Long cacheRead = count(usage, "cache_read_input_tokens");
            Long cacheWrite = count(usage, "cache_creation_input_tokens");
            if (cacheRead != null || cacheWrite != null) {
                // Anthropic counts cache reads and writes outside input_tokens
                prompt = (prompt == null ? 0 : prompt) + (cacheRead == null ? 0 : cacheRead) + (cacheWrite == null ? 0 : cacheWrite);
                cached = cacheRead;
            }
        }
        if (completion == null) {
            completion = count(usage, "output_tokens");
        }
        if (cached == null) {
            cached = count(usage.path("input_tokens_details"), "cached_tokens");
        }
        if (reasoning == null) {
            reasoning = count(usage.path("output_tokens_details"), "reasoning_tokens");
        }
        return new TokenCounts(prompt, completion, cached, reasoning);
    }

    /**
     * The usage in a whole JSON answer or event: its {@code usage}, {@code message.usage}
     * (Anthropic's {@code message_start}) or {@code response.usage} (Responses' {@code response.completed}).
     *
     * @param json the text
     * @return the counts, {@link #UNKNOWN} when it carries none or is not JSON
     */
    public static TokenCounts inAnswer(String json) {
        if (json == null || !json.contains("usage")) {
            return UNKNOWN;
        }
        try (JsonParser p = MAPPER.getFactory().createParser(json)) {
            return inAnswer(p);
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /**
     * The usage in a whole JSON answer as the upstream sent it, read without a copy of its text or
     * a tree of it (issue 29): only the usage objects are read, everything else is skipped, so a
     * passthrough answer of 12 MiB costs one pass, not its text twice and its tree.
     *
     * @param json the answer's bytes
     * @return the counts, {@link #UNKNOWN} when it carries none or is not JSON
     */
    public static TokenCounts inAnswer(byte[] json) {
        if (json == null) {
            return UNKNOWN;
        }
        try (JsonParser p = MAPPER.getFactory().createParser(json)) {
            return inAnswer(p);
        } catch (IOException | RuntimeException e) {
            return UNKNOWN;
        }
    }

    /** Top-level {@code usage} first, then {@code message.usage}, then {@code response.usage}; each the last one given. */
    private static TokenCounts inAnswer(JsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            return UNKNOWN;
        }
        JsonNode top = null;
        JsonNode message = null;
        JsonNode response = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.START_OBJECT && name.equals("usage")) {
                top = p.readValueAsTree();
            } else if (value == JsonToken.START_OBJECT && name.equals("message")) {
                message = usageIn(p);
            } else if (value == JsonToken.START_OBJECT && name.equals("response")) {
                response = usageIn(p);
            } else {
                p.skipChildren();
                // a later field of the same name is the one that counts, as in a tree
                switch (name) {
                    case "usage" -> top = null;
                    case "message" -> message = null;
                    case "response" -> response = null;
                    default -> { }
                }
            }
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
            return UNKNOWN;
        }
        JsonNode usage = top != null ? top : message != null ? message : response;
        return usage == null ? UNKNOWN : ofJson(usage);
    }

    /** The {@code usage} object directly inside the object the parser is at, or null; the rest skipped. */
    private static JsonNode usageIn(JsonParser p) throws IOException {
        JsonNode usage = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (value == JsonToken.START_OBJECT && name.equals("usage")) {
                usage = p.readValueAsTree();
            } else {
                p.skipChildren();
            }
        }
        return usage;
    }

    private static Long count(JsonNode n, String field) {
        JsonNode v = n == null ? null : n.get(field);
        return v != null && v.isIntegralNumber() && v.asLong() >= 0 ? v.asLong() : null;
    }

    private static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
