package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Choice;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import java.util.HashMap;
import java.util.Map;

/** What an executor reads of an answer it asked for, and how it asks for a whole one. */
final class Answers {

    private Answers() {
    }

    /**
     * The text of a whole answer: its first choice's content; empty when it has none (an answer
     * of tool calls only).
     */
    static String text(Outcome.Served served) {
        if (served.reply() instanceof Reply.Complete c) {
            for (Choice choice : c.response().choices()) {
                return choice.message() == null ? "" : choice.message().textContent();
            }
        }
        return "";
    }

    /** The request asking for a whole answer: no stream, and no {@code stream_options} (upstreams refuse them without a stream). */
    static ChatRequest whole(ChatRequest request) {
        if (!request.stream() && !request.extra().containsKey("stream_options")) {
            return request;
        }
        Map<String, String> extra = new HashMap<>(request.extra());
        extra.remove("stream_options");
        return request.toBuilder().stream(false).extra(extra).build();
    }

    /** How an unserved member ended, in a word (for {@code X-Sluice-Fusion-Failed}). */
    static String reason(Outcome outcome) {
        return switch (outcome) {
            case Outcome.Failed f -> f.verdict().reason().wireName();
            case Outcome.CoolingDown c -> "cooling_down";
            case Outcome.NoConnection n -> "no_connection";
            case Outcome.Refused r -> r.refusal().name().toLowerCase(java.util.Locale.ROOT);
            case Outcome.Unroutable u -> u.why().name().toLowerCase(java.util.Locale.ROOT);
            case Outcome.Served s -> "served";
        };
    }
}
