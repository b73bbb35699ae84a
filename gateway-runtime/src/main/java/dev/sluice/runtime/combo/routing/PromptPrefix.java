package dev.sluice.runtime.combo.routing;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.Role;

/**
 * The prompt-prefix hash of {@code cache-optimized} (issue 34): the text of the system and
 * developer messages (their first {@value #MAX_CHARS} characters together), then the role and text
 * of the first other message (its first {@value #MAX_CHARS} characters). A conversation keeps its
 * hash from turn to turn (its first message does not change), conversations that start differently
 * get different hashes, and a long system prompt counts only by its opening. The two parts are
 * hashed with {@link String#hashCode()} (vectorised by the JDK; a cut part is copied first) into the
 * two halves of a 64-bit value: well under a µs for the largest prefix, computed only when a
 * strategy asks for it.
 */
final class PromptPrefix {

    /** Characters of each part that count. */
    static final int MAX_CHARS = 4096;

    private PromptPrefix() {
    }

    /**
     * The hash of a request's prompt prefix.
     *
     * @param r the request
     * @return the hash; 0 when the request has no message
     */
    static long of(ChatRequest r) {
        if (r.messages().isEmpty()) {
            return 0;
        }
        int system = 1;
        int budget = MAX_CHARS;
        ChatMessage first = null;
        for (ChatMessage m : r.messages()) {
            if (m.role() == Role.SYSTEM || m.role() == Role.DEVELOPER) {
                for (ContentPart p : m.content()) {
                    if (p instanceof ContentPart.Text t && budget > 0) {
                        system = 31 * system + opening(t.text(), budget);
                        budget -= Math.min(budget, t.text().length());
                    }
                }
            } else if (first == null) {
                first = m;
            }
        }
        int opening = 1;
        if (first != null) {
            opening = first.role().wireName().hashCode();
            budget = MAX_CHARS;
            for (ContentPart p : first.content()) {
                if (p instanceof ContentPart.Text t && budget > 0) {
                    opening = 31 * opening + opening(t.text(), budget);
                    budget -= Math.min(budget, t.text().length());
                }
            }
        }
        long h = ((long) system << 32) ^ (opening & 0xffffffffL);
        return h == 0 ? 1 : h;
    }

    private static int opening(String s, int max) {
        return (s.length() <= max ? s : s.substring(0, max)).hashCode();
    }
}
