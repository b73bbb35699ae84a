package dev.sluice.runtime.combo.flow;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * The requests the executors write (issue 34), word for word as docs/combos.md states them: a
 * pipeline step's, the fusion judge's. Each keeps the client's conversation, tools and parameters
 * and adds messages of its own; only the client's streaming choice is changed where a whole answer
 * is needed.
 */
final class Prompts {

    /** Introduces the previous pipeline step's answer. */
    static final String PREVIOUS_STEP = "The previous step's answer:\n\n";
    /** The judge's instruction. */
    static final String JUDGE = "You are the judge of a panel. Several assistants answered the conversation that follows;"
            + " their answers come after it. Write the single best answer to the conversation's last message: keep what"
            + " is correct and useful in the candidates, correct what is wrong, and answer directly, without mentioning"
            + " the panel or the candidates.";

    private Prompts() {
    }

    /**
     * A pipeline step's request: its instruction as a leading system message, the client's
     * conversation, and — after the first step — the previous step's answer as a user message.
     *
     * @param request the client's request
     * @param instruction the step's instruction
     * @param previous the previous step's answer, or null for the first step
     * @param last whether this is the last step (the only one that may stream)
     * @return the request
     */
    static ChatRequest step(ChatRequest request, String instruction, String previous, boolean last) {
        List<ChatMessage> messages = new ArrayList<>(request.messages().size() + 2);
        messages.add(ChatMessage.text(Role.SYSTEM, instruction));
        messages.addAll(request.messages());
        if (previous != null) {
            messages.add(ChatMessage.text(Role.USER, PREVIOUS_STEP + previous));
        }
        ChatRequest r = request.toBuilder().messages(messages).build();
        return last ? r : Answers.whole(r);
    }

    /**
     * The judge's request: its instruction, the client's conversation, then one user message with
     * the panel's answers, numbered in panel order.
     *
     * @param request the client's request
     * @param answers the answers of the members that answered
     * @return the request, streamed when the client's is
     */
    static ChatRequest judge(ChatRequest request, List<String> answers) {
        List<ChatMessage> messages = new ArrayList<>(request.messages().size() + 2);
        messages.add(ChatMessage.text(Role.SYSTEM, JUDGE));
        messages.addAll(request.messages());
        StringBuilder sb = new StringBuilder("Candidate answers:");
        for (int i = 0; i < answers.size(); i++) {
            sb.append("\n\n### Candidate ").append(i + 1).append("\n\n").append(answers.get(i));
        }
        messages.add(ChatMessage.text(Role.USER, sb.toString()));
        return request.toBuilder().messages(messages).build();
    }
}
