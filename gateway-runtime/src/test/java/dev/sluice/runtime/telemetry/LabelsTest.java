package dev.sluice.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Model label values are names a provider could serve, never a client's raw string (issue 29). */
class LabelsTest {

    @Test
    void modelNamesThatNoProviderServesAreCountedAsOther_issue29() {
        Labels labels = new Labels();
        for (String raw : new String[] {"../../x", "x?alt=evil", "a b", "x\"}", "m".repeat(129)}) {
            assertThat(labels.model("gemini", raw)).as(raw).isEqualTo(Labels.OTHER);
        }
        for (String real : new String[] {"gpt-4o", "models/gemini-2.5-pro", "qwen2.5:7b", "@cf/meta/llama-3-8b", "meta-llama/Llama-3.1-8B+x"}) {
            assertThat(labels.model("p", real)).as(real).isEqualTo(real);
        }
        assertThat(labels.model(null, "gpt-4o")).isEqualTo(Labels.NONE);
    }
}
