package dev.sluice.runtime.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.Usage;
import java.io.IOException;
import java.util.Set;

/** The {@code usage} object, shared by complete answers and stream chunks. */
final class UsageJson {

    private static final Set<String> USAGE_FIELDS = Set.of("prompt_tokens", "completion_tokens", "total_tokens");

    private UsageJson() {
    }

    /** Lenient: a missing or non-object usage is none, negative counts are zero. */
    static Usage read(JsonNode u) {
        if (u == null || !u.isObject()) {
            return null;
        }
        long p = Math.max(0, u.path("prompt_tokens").asLong(0));
        long c = Math.max(0, u.path("completion_tokens").asLong(0));
        long t = Math.max(0, u.path("total_tokens").asLong(p + c));
        return new Usage(p, c, t, WireJson.extras((ObjectNode) u, USAGE_FIELDS));
    }

    static void write(JsonGenerator g, Usage u) throws IOException {
        if (u == null) {
            return;
        }
        g.writeObjectFieldStart("usage");
        g.writeNumberField("prompt_tokens", u.promptTokens());
        g.writeNumberField("completion_tokens", u.completionTokens());
        g.writeNumberField("total_tokens", u.totalTokens());
        WireJson.writeExtras(g, u.extra());
        g.writeEndObject();
    }
}
