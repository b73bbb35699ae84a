package dev.sluice.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code modelPrices} of {@code /api/settings}: USD per million tokens per provider/model (issue 18). */
class ModelPricesTest {

    private static final ObjectMapper M = new ObjectMapper();

    private static ModelPrices read(String json) throws Exception {
        return ModelPrices.read(M.readTree(json), "modelPrices");
    }

    @Test
    void pricesTurnTokensIntoDollars_cachedInputChargedAtItsOwnRate_issue18() throws Exception {
        ModelPrices p = read("{\"openai/gpt-4o\":{\"input\":2.5,\"output\":10,\"cachedInput\":1.25},\"x/y\":{\"input\":1,\"output\":2}}");
        assertThat(p.of("openai", "gpt-4o").cost(1_000_000, 400_000, 100_000)).isEqualTo(600_000 * 2.5e-6 + 400_000 * 1.25e-6 + 1.0);
        // without a cached rate, cached tokens are input tokens
        assertThat(p.of("x", "y").cost(1_000, 500, 1_000)).isEqualTo(0.003);
        assertThat(p.of("x", "z")).isNull();
        assertThat(read("null")).isSameAs(ModelPrices.NONE);
        assertThat(p.write().toString()).isEqualTo("{\"openai/gpt-4o\":{\"input\":2.5,\"output\":10.0,\"cachedInput\":1.25},"
                + "\"x/y\":{\"input\":1.0,\"output\":2.0}}");
    }

    @Test
    void invalidPricesAreRefusedNamingTheField_issue18() {
        assertThatThrownBy(() -> read("{\"nomodel\":{\"input\":1,\"output\":1}}")).isInstanceOf(SettingsException.class)
                .hasMessageContaining("modelPrices.nomodel");
        assertThatThrownBy(() -> read("{\"a/b\":{\"input\":-1,\"output\":1}}")).hasMessageContaining("modelPrices.a/b.input");
        assertThatThrownBy(() -> read("{\"a/b\":{\"output\":1}}")).hasMessageContaining("modelPrices.a/b.input");
        assertThatThrownBy(() -> read("{\"a/b\":{\"input\":1,\"output\":1,\"currency\":\"eur\"}}"))
                .hasMessageContaining("modelPrices.a/b.currency");
        assertThatThrownBy(() -> read("[1]")).hasMessageContaining("modelPrices");
    }
}
