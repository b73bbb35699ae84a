package dev.sluice.runtime.combo.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The prompt-prefix rule of {@code cache-optimized} (issue 34). */
class PromptPrefixTest {

    private static ChatRequest request(ChatMessage... messages) {
        return ChatRequest.builder("combo", List.of(messages)).build();
    }

    @Test
    void aConversationKeepsItsHashFromTurnToTurn_issue34() {
        ChatMessage system = ChatMessage.text(Role.SYSTEM, "You are a coding agent.");
        ChatMessage first = ChatMessage.text(Role.USER, "Fix the failing test in Foo.java");
        List<ChatMessage> later = new ArrayList<>(List.of(system, first, ChatMessage.text(Role.ASSISTANT, "Done."),
                ChatMessage.text(Role.USER, "Now run the suite")));

        long turn1 = PromptPrefix.of(request(system, first));
        assertThat(turn1).isNotZero();
        assertThat(PromptPrefix.of(request(later.toArray(ChatMessage[]::new)))).isEqualTo(turn1);
        assertThat(PromptPrefix.of(request(system, ChatMessage.text(Role.USER, "Write a README")))).isNotEqualTo(turn1);
        assertThat(PromptPrefix.of(request(ChatMessage.text(Role.SYSTEM, "You are terse."), first))).isNotEqualTo(turn1);
    }

    @Test
    void onlyTheOpeningOfALongPartCounts_issue34() {
        String opening = "x".repeat(PromptPrefix.MAX_CHARS);
        ChatMessage first = ChatMessage.text(Role.USER, "hi");

        assertThat(PromptPrefix.of(request(ChatMessage.text(Role.SYSTEM, opening + "cwd: /a, date: Monday"), first)))
                .isEqualTo(PromptPrefix.of(request(ChatMessage.text(Role.SYSTEM, opening + "cwd: /b, date: Tuesday"), first)));
        assertThat(PromptPrefix.of(request())).isZero();
    }
}
