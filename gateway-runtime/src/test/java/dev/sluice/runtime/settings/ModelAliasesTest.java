package dev.sluice.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The operators' model aliases (SPEC API-1): exact beats pattern, the most specific pattern wins, no chains. */
class ModelAliasesTest {

    private static ModelAliases aliases(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return new ModelAliases(m);
    }

    @Test
    void anExactAliasWinsThenTheMostSpecificPatternAndOtherNamesStay_API1() {
        ModelAliases a = aliases("claude-*", "glm/glm-4.6", "claude-haiku-*", "coder", "claude-opus-4-8", "claude/claude-opus-4-5",
                "*-mini", "gemini/gemini-2.5-flash");
        assertThat(a.resolve("claude-opus-4-8")).isEqualTo("claude/claude-opus-4-5");
        assertThat(a.resolve("claude-haiku-4-5-20251001")).isEqualTo("coder");
        assertThat(a.resolve("claude-sonnet-4-5-20250929")).isEqualTo("glm/glm-4.6");
        assertThat(a.resolve("gpt-5-mini")).isEqualTo("gemini/gemini-2.5-flash");
        assertThat(a.resolve("glm/glm-4.6")).as("no chains, no match").isEqualTo("glm/glm-4.6");
        assertThat(a.exact()).containsOnlyKeys("claude-opus-4-8");
    }

    @Test
    void badAliasesAre400sNamingTheEntry() throws Exception {
        ObjectMapper m = new ObjectMapper();
        assertThatThrownBy(() -> ModelAliases.read(m.readTree("{\"*\":\"glm/glm-4.6\"}"), "modelAliases"))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelAliases.*"));
        assertThatThrownBy(() -> ModelAliases.read(m.readTree("{\"fast\":\" \"}"), "modelAliases"))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelAliases.fast"));
        assertThatThrownBy(() -> ModelAliases.read(m.readTree("[]"), "modelAliases")).isInstanceOf(SettingsException.class);
        assertThat(ModelAliases.read(m.readTree("null"), "modelAliases")).isEqualTo(ModelAliases.NONE);
    }
}
