package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.chat.ToolCall;
import java.util.ArrayList;
import java.util.List;

/**
 * A conversation split for {@code context-relay} (issue 34): the leading system and developer
 * messages (kept), the older turns (summarised), and the latest {@code keepTurns} user turns —
 * each a user message and everything after it — kept word for word, so a tool call is never
 * separated from its result.
 *
 * @param head the leading system and developer messages
 * @param older the messages the summary replaces (empty when there is nothing to shorten)
 * @param tail the latest turns
 */
record Conversation(List<ChatMessage> head, List<ChatMessage> older, List<ChatMessage> tail) {

    /** Introduces the summary in the shortened conversation. */
    static final String SUMMARY_INTRO = "Summary of the earlier conversation (the older turns were replaced by this summary):\n\n";
    /** The summary request's instruction. */
    static final String INSTRUCTION = "Summarise the conversation below so that an assistant can continue it without"
            + " seeing it: keep every fact, decision, name, number, file and code identifier, and every open question or"
            + " task. Write only the summary.";
    /** The longest summary asked for, tokens. */
    static final int SUMMARY_MAX_TOKENS = 1_024;

    static Conversation split(List<ChatMessage> messages, int keepTurns) {
        int start = 0;
        while (start < messages.size() && (messages.get(start).role() == Role.SYSTEM || messages.get(start).role() == Role.DEVELOPER)) {
            start++;
        }
        int cut = messages.size();
        int turns = 0;
        for (int i = messages.size() - 1; i >= start && turns < keepTurns; i--) {
            if (messages.get(i).role() == Role.USER) {
                cut = i;
                turns++;
            }
        }
        if (turns == 0) {
            // no user turn to keep: nothing can be shortened safely
            cut = start;
        }
        return new Conversation(messages.subList(0, start), messages.subList(start, cut), messages.subList(cut, messages.size()));
    }

    /** @return a hash of the older turns: a cached summary serves while they are the same */
    long olderHash() {
        long h = 1125899906842597L;
        for (ChatMessage m : older) {
            h = 31 * h + m.role().hashCode();
            h = 31 * h + m.textContent().hashCode();
            h = 31 * h + m.toolCalls().hashCode();
        }
        return h * 31 + older.size();
    }

    /** The request asking the summary model for the summary of the older turns. */
    ChatRequest summaryRequest(String model) {
        StringBuilder transcript = new StringBuilder();
        for (ChatMessage m : older) {
            transcript.append(m.role().name().toLowerCase(java.util.Locale.ROOT)).append(": ").append(m.textContent());
            for (ToolCall call : m.toolCalls()) {
                transcript.append("\n[tool call ").append(call.name()).append(' ').append(call.argumentsJson()).append(']');
            }
            transcript.append("\n\n");
        }
        return ChatRequest.builder(model, List.of(ChatMessage.text(Role.SYSTEM, INSTRUCTION), ChatMessage.text(Role.USER,
                transcript.toString().strip()))).maxTokens(SUMMARY_MAX_TOKENS).build();
    }

    /** The client's request with the older turns replaced by the summary. */
    ChatRequest shortened(ChatRequest request, String summary) {
        List<ChatMessage> messages = new ArrayList<>(head.size() + 1 + tail.size());
        messages.addAll(head);
        messages.add(ChatMessage.text(Role.SYSTEM, SUMMARY_INTRO + summary));
        messages.addAll(tail);
        return request.toBuilder().messages(messages).build();
    }
}
