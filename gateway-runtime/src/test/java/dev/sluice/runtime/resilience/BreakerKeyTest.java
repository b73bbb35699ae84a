package dev.sluice.runtime.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Breakers are keyed by provider and upstream host (SPEC BO-4). */
class BreakerKeyTest {

    @Test
    void keyIsProviderAtLowerCaseHost_BO4() {
        BreakerKey k = new BreakerKey("glm", "Open.BigModel.CN:443");

        assertThat(k.host()).isEqualTo("open.bigmodel.cn:443");
        assertThat(k).hasToString("glm@open.bigmodel.cn:443").isEqualTo(new BreakerKey("glm", "open.bigmodel.cn:443"));
    }

    @Test
    void baseUrlGivesHostAndPortWithTheSchemeDefault_BO4() {
        assertThat(BreakerKey.forBaseUrl("openai", "https://API.openai.com/v1"))
                .isEqualTo(new BreakerKey("openai", "api.openai.com:443"));
        assertThat(BreakerKey.forBaseUrl("openai", "https://api.openai.com:443/v1"))
                .isEqualTo(BreakerKey.forBaseUrl("openai", "https://api.openai.com"));
        assertThat(BreakerKey.forBaseUrl("ollama", "http://127.0.0.1:11434/v1"))
                .isEqualTo(new BreakerKey("ollama", "127.0.0.1:11434"));
        assertThat(BreakerKey.forBaseUrl("x", "http://mock.local/v1")).isEqualTo(new BreakerKey("x", "mock.local:80"));
    }

    @Test
    void twoHostsOfOneProviderAreTwoBreakers_BO4() {
        assertThat(BreakerKey.forBaseUrl("glm", "https://open.bigmodel.cn/api/paas/v4"))
                .isNotEqualTo(BreakerKey.forBaseUrl("glm", "https://api.z.ai/api/paas/v4"));
    }

    @Test
    void blankPartsAndHostlessUrlsAreRefused_BO4() {
        assertThatThrownBy(() -> new BreakerKey(" ", "h:1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BreakerKey("p", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BreakerKey.forBaseUrl("p", "/v1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no host");
    }
}
