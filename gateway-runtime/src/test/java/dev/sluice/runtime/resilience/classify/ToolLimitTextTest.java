package dev.sluice.runtime.resilience.classify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** SPEC OF-2: the upstream texts that say "too many tools", and the limit they state. */
class ToolLimitTextTest {

    @Test
    void theLimitIsTheNumberTheTextStatesElseOneLessThanWasSent_OF2() {
        assertThat(ToolLimitText.limit("Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array"
                + " with length 140 instead.", 140)).isEqualTo(128);
        assertThat(ToolLimitText.limit("Too many tools: this model supports at most 64", 70)).isEqualTo(64);
        assertThat(ToolLimitText.limit("The number of tools exceeds the maximum", 30)).isEqualTo(29);
        assertThat(ToolLimitText.limit("messages: field required", 30)).isEqualTo(-1);
        assertThat(ToolLimitText.matches("too many tools")).isTrue();
        assertThat(ToolLimitText.matches("too many tokens")).isFalse();
    }
}
