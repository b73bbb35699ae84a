package dev.sluice.runtime.combo.flow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.combo.strategy.FlowMember;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The parts of the combo executors that need no upstream (issue 34): splits, prompts, member combos, the summary cache. */
class FlowPartsTest {

    private static ChatMessage m(Role role, String text) {
        return ChatMessage.text(role, text);
    }

    private static final List<ChatMessage> TALK = List.of(m(Role.SYSTEM, "sys"), m(Role.USER, "u1"), m(Role.ASSISTANT, "a1"),
            m(Role.USER, "u2"), m(Role.ASSISTANT, "a2"), m(Role.TOOL, "t2"), m(Role.USER, "u3"));

    private static List<String> texts(List<ChatMessage> messages) {
        return messages.stream().map(ChatMessage::textContent).toList();
    }

    @Test
    void aConversationKeepsItsSystemMessagesAndItsLatestTurnsWhole_issue34() {
        Conversation one = Conversation.split(TALK, 1);
        assertThat(texts(one.head())).containsExactly("sys");
        assertThat(texts(one.older())).containsExactly("u1", "a1", "u2", "a2", "t2");
        assertThat(texts(one.tail())).containsExactly("u3");
        Conversation two = Conversation.split(TALK, 2);
        assertThat(texts(two.older())).containsExactly("u1", "a1");
        assertThat(texts(two.tail())).containsExactly("u2", "a2", "t2", "u3");
        // more turns kept than there are: nothing to shorten
        assertThat(Conversation.split(TALK, 5).older()).isEmpty();
        // no user turn at all: nothing is cut
        assertThat(Conversation.split(List.of(m(Role.SYSTEM, "s"), m(Role.ASSISTANT, "a")), 1).older()).isEmpty();
    }

    @Test
    void theShortenedConversationPutsTheSummaryAfterTheSystemMessages_issue34() {
        ChatRequest request = ChatRequest.builder("relay", TALK).maxTokens(50).stream(true).build();
        Conversation c = Conversation.split(TALK, 1);
        ChatRequest shortened = c.shortened(request, "SUM");
        assertThat(texts(shortened.messages())).containsExactly("sys", Conversation.SUMMARY_INTRO + "SUM", "u3");
        assertThat(shortened.messages().get(1).role()).isEqualTo(Role.SYSTEM);
        assertThat(shortened.maxTokens()).isEqualTo(50);
        assertThat(shortened.stream()).isTrue();
        ChatRequest ask = c.summaryRequest("glm/glm-4.6");
        assertThat(ask.model()).isEqualTo("glm/glm-4.6");
        assertThat(ask.stream()).isFalse();
        assertThat(ask.maxTokens()).isEqualTo(Conversation.SUMMARY_MAX_TOKENS);
        assertThat(ask.messages().get(1).textContent()).isEqualTo("user: u1\n\nassistant: a1\n\nuser: u2\n\nassistant: a2\n\ntool: t2");
        // the same older turns hash alike; another older turn does not
        assertThat(Conversation.split(TALK, 1).olderHash()).isEqualTo(c.olderHash());
        assertThat(Conversation.split(TALK, 2).olderHash()).isNotEqualTo(c.olderHash());
    }

    @Test
    void aSummaryServesWhileTheOlderTurnsAreTheSameForAnHourAfterItsLastUse_issue34() {
        TestClock clock = TestClock.create();
        Summaries s = new Summaries(clock);
        s.put("c\ns:1", 42, "sum");
        assertThat(s.find("c\ns:1", 42)).isEqualTo("sum");
        assertThat(s.find("c\ns:1", 43)).isNull();
        assertThat(s.find("c\ns:2", 42)).isNull();
        clock.advance(Duration.ofMillis(Summaries.TTL_MS));
        assertThat(s.find("c\ns:1", 42)).as("used at the hour's end renews it").isEqualTo("sum");
        clock.advance(Duration.ofMillis(Summaries.TTL_MS + 1));
        assertThat(s.find("c\ns:1", 42)).isNull();
        for (int i = 0; i <= Summaries.MAX_ENTRIES; i++) {
            s.put("c\ns:" + i, i, "x");
        }
        assertThat(s.size()).isEqualTo(Summaries.MAX_ENTRIES);
        assertThat(s.find("c\ns:0", 0)).as("the least recently used went first").isNull();
    }

    @Test
    void stepsAndJudgesFailOverToTheOtherTargetsByPriorityWhilePanelMembersStandAlone_issue34() {
        Combo combo = new Combo("pipe", "pipeline", Map.of("maxAttempts", 2, "steps", List.of()), List.of(
                new ComboTarget("a/1", null, null, 3, null), new ComboTarget("b/2", "c9", null, 1, null),
                new ComboTarget("c/3", null, null, 2, null)), 10, 20);
        Combo step = MemberCombos.withFallbacks(combo, new FlowMember(0, null), "step1");
        assertThat(step.name()).isEqualTo("pipe#step1");
        assertThat(step.strategy()).isEqualTo("fill-first");
        assertThat(step.targets().stream().map(ComboTarget::model)).containsExactly("a/1", "b/2", "c/3");
        assertThat(step.targets().get(1).connectionId()).isEqualTo("c9");
        assertThat(step.strategyOptions()).isEqualTo(Map.of("maxAttempts", 2));
        assertThat(step.updatedAt()).isEqualTo(20);
        Combo byModel = MemberCombos.withFallbacks(combo, new FlowMember(null, "z/9"), "judge");
        assertThat(byModel.targets().stream().map(ComboTarget::model)).containsExactly("z/9", "b/2", "c/3", "a/1");
        Combo member = MemberCombos.alone(combo, new FlowMember(2, null), "panel3");
        assertThat(member.targets().stream().map(ComboTarget::model)).containsExactly("c/3");
        assertThat(MemberCombos.label(combo, new FlowMember(1, null))).isEqualTo("b/2");
    }

    @Test
    void stepAndJudgeRequestsKeepTheConversationAndAddTheirMessages_issue34() {
        ChatRequest request = ChatRequest.builder("pipe", List.of(m(Role.USER, "q"))).stream(true)
                .extra(Map.of("stream_options", "{\"include_usage\":true}", "seed", "1")).build();
        ChatRequest first = Prompts.step(request, "draft", null, false);
        assertThat(texts(first.messages())).containsExactly("draft", "q");
        assertThat(first.stream()).isFalse();
        assertThat(first.extra()).isEqualTo(Map.of("seed", "1"));
        ChatRequest last = Prompts.step(request, "polish", "D", true);
        assertThat(texts(last.messages())).containsExactly("polish", "q", Prompts.PREVIOUS_STEP + "D");
        assertThat(last.stream()).isTrue();
        assertThat(last.extra()).containsKey("stream_options");
        ChatRequest judge = Prompts.judge(request, List.of("one", "two"));
        assertThat(texts(judge.messages())).containsExactly(Prompts.JUDGE, "q",
                "Candidate answers:\n\n### Candidate 1\n\none\n\n### Candidate 2\n\ntwo");
        assertThat(judge.stream()).isTrue();
    }
}
