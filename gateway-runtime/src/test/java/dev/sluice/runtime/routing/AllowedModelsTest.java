package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AllowedModelsTest {

    @Test
    void noEntryAllowsEveryModel_issue33() {
        assertThat(AllowedModels.of(List.of())).isSameAs(AllowedModels.ALL);
        assertThat(AllowedModels.ALL.allows("anything/at-all")).isTrue();
        assertThat(AllowedModels.ALL.allows(null)).isTrue();
    }

    @Test
    void anEntryIsAnExactNameOrAPrefixEndingInAStar_issue33() {
        AllowedModels m = AllowedModels.of(List.of("openai/*", "fast"));

        assertThat(m.allows("openai/gpt-4o-mini")).isTrue();
        assertThat(m.allows("openai/")).isTrue();
        assertThat(m.allows("fast")).isTrue();
        assertThat(m.allows("faster")).as("exact names are not prefixes").isFalse();
        assertThat(m.allows("openaix/gpt")).isFalse();
        assertThat(m.allows("glm/glm-5")).isFalse();
        assertThat(m.allows(null)).isFalse();
    }
}
