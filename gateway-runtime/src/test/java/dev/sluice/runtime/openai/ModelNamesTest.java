package dev.sluice.runtime.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one rule for model names, applied before routing by every endpoint (issue 29). */
class ModelNamesTest {

    @Test
    void theLimitIs256Characters_issue29() {
        assertThat(ModelNames.MAX_LENGTH).isEqualTo(256);
        assertThat(ModelNames.problem("model", "m".repeat(256))).isNull();
        assertThat(ModelNames.problem("model", "m".repeat(257))).isEqualTo("'model' is longer than 256 characters.");
    }

    @Test
    void whitespaceAtTheEndsOfTheNameOrOfAPartIsRefused_issue29() {
        for (String bad : new String[] {"mk/ x", "gemini/ x", " mk/x", "mk/x ", "mk /x", "\u00a0x", "x\u2003"}) {
            assertThat(ModelNames.problem("model", bad)).as(bad).contains("whitespace");
        }
        for (String good : new String[] {"mk/x", "gpt-4o", "openrouter/meta-llama/llama-3.1-8b", "my combo"}) {
            assertThat(ModelNames.problem("model", good)).as(good).isNull();
        }
    }

    @Test
    void controlCharactersAreRefused_issue29() {
        for (String bad : new String[] {"a\tb", "a\u007fb", "a\nb", "a\u0085b", "a\u2028b", "a\u0000b"}) {
            assertThat(ModelNames.problem("model", bad)).as(bad).isEqualTo("'model' contains a control character.");
        }
    }

    @Test
    void loneSurrogatesAreRefusedAndPairsKept_issue29() {
        assertThat(ModelNames.problem("model", "mk/\ud800")).isEqualTo("'model' contains a lone UTF-16 surrogate (\\ud800).");
        assertThat(ModelNames.problem("model", "mk/a\udc00b")).contains("lone UTF-16 surrogate");
        assertThat(ModelNames.problem("model", "mk/\ud83d")).contains("lone UTF-16 surrogate");
        assertThat(ModelNames.problem("model", "mk/\ud83d\ude00")).isNull();
    }
}
