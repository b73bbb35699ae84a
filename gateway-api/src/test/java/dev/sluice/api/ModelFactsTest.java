package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Issue 34: what descriptors declare of a model for the catalog; every figure optional and checked. */
class ModelFactsTest {

    @Test
    void aModelDeclaresItsFiguresAndTheFormOfSpi10KnowsNone_issue34() {
        ModelFacts facts = ModelFacts.builder().contextWindow(200_000L).maxOutputTokens(64_000L).inputPerMillion(3.0)
                .outputPerMillion(15.0).cachedInputPerMillion(0.3).tier(3).build();
        ModelInfo m = ModelInfo.chat("acme-1").withFacts(facts);
        assertThat(m.facts().contextWindow()).isEqualTo(200_000L);
        assertThat(m.facts()).isEqualTo(facts.toBuilder().build()).hasSameHashCodeAs(facts.toBuilder().build());
        assertThat(m.withFacts(null).facts()).isSameAs(ModelFacts.UNKNOWN);
        assertThat(new ModelInfo("acme-1", ModelKind.CHAT).facts()).isSameAs(ModelFacts.UNKNOWN);
        assertThat(ModelInfo.chat("acme-1")).isEqualTo(new ModelInfo("acme-1", ModelKind.CHAT, null));
        assertThat(ModelFacts.UNKNOWN.tier()).isNull();
    }

    @Test
    void badFiguresAreRefusedByName_issue34() {
        assertThatThrownBy(() -> ModelFacts.builder().contextWindow(0L)).hasMessageContaining("contextWindow");
        assertThatThrownBy(() -> ModelFacts.builder().maxOutputTokens(-1L)).hasMessageContaining("maxOutputTokens");
        assertThatThrownBy(() -> ModelFacts.builder().inputPerMillion(-0.5)).hasMessageContaining("inputPerMillion");
        assertThatThrownBy(() -> ModelFacts.builder().outputPerMillion(Double.NaN)).hasMessageContaining("outputPerMillion");
        assertThatThrownBy(() -> ModelFacts.builder().cachedInputPerMillion(Double.POSITIVE_INFINITY))
                .hasMessageContaining("cachedInputPerMillion");
        assertThatThrownBy(() -> ModelFacts.builder().tier(-1)).hasMessageContaining("tier");
    }
}
