package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Provider descriptors validate in the compact constructor (CONVENTIONS 1; SPEC DM-1b, ER-6, PA-3). */
@SuppressWarnings("deprecation") // the positional forms kept for compiled plugins are tested too
class ProviderDescriptorTest {

    private static ProviderDescriptor withId(String id) {
        return ProviderDescriptor.openAiCompatible(id, "X", ProviderClass.APIKEY, "https://x.example/v1", List.of());
    }

    private static ProviderDescriptor withBaseUrl(String url) {
        return ProviderDescriptor.openAiCompatible("x", "X", ProviderClass.APIKEY, url, List.of());
    }

    @Test
    void validIdsAreAccepted_PA3() {
        for (String id : List.of("openai", "opencode-go", "a.b_c-1", "9lives", "x", "a".repeat(64))) {
            assertThat(withId(id).id()).isEqualTo(id);
            assertThat(ProviderDescriptor.isValidId(id)).as(id).isTrue();
        }
    }

    @Test
    void invalidIdsAreRefusedNamingTheId_PA3() {
        for (String id : List.of("OpenAI", "-x", ".x", "_x", "", "a b", "x/y", "é", "a".repeat(65))) {
            assertThat(ProviderDescriptor.isValidId(id)).as(id).isFalse();
            assertThatThrownBy(() -> withId(id)).as(id)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid provider id '" + id + "': use [a-z0-9][a-z0-9._-]*, at most 64 characters");
        }
        assertThat(ProviderDescriptor.isValidId(null)).isFalse();
    }

    @Test
    void baseUrlMustBeHttpOrHttps_DM1b() {
        assertThat(withBaseUrl("http://127.0.0.1:8080/v1").defaultBaseUrl()).isEqualTo("http://127.0.0.1:8080/v1");
        assertThat(withBaseUrl("https://api.anthropic.com").defaultBaseUrl()).isEqualTo("https://api.anthropic.com");
        for (String url : List.of("ftp://x.example", "api.openai.com/v1", "", "file:///etc/passwd")) {
            assertThatThrownBy(() -> withBaseUrl(url)).as(url)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("defaultBaseUrl of provider 'x' is not an http(s) URL");
        }
    }

    @Test
    void nullFieldsAreRefusedNamingTheField_PA3() {
        assertThatNullPointerException().isThrownBy(() -> new ProviderDescriptor(null, "X", ProviderClass.APIKEY, "https://x", "e",
                List.of(), true, false, false)).withMessage("id is null");
        assertThatNullPointerException().isThrownBy(() -> new ProviderDescriptor("x", null, ProviderClass.APIKEY, "https://x", "e",
                List.of(), true, false, false)).withMessage("displayName is null");
        assertThatNullPointerException().isThrownBy(() -> new ProviderDescriptor("x", "X", null, "https://x", "e",
                List.of(), true, false, false)).withMessage("defaultClass is null");
        assertThatNullPointerException().isThrownBy(() -> new ProviderDescriptor("x", "X", ProviderClass.APIKEY, null, "e",
                List.of(), true, false, false)).withMessage("defaultBaseUrl is null");
        assertThatNullPointerException().isThrownBy(() -> new ProviderDescriptor("x", "X", ProviderClass.APIKEY, "https://x", null,
                List.of(), true, false, false)).withMessage("executor is null");
        assertThatNullPointerException().isThrownBy(() -> new ProviderDescriptor("x", "X", ProviderClass.APIKEY, "https://x", "e",
                null, true, false, false));
    }

    @Test
    void modelsAreCopiedAndImmutable_PA3() {
        List<ModelInfo> models = new ArrayList<>(List.of(ModelInfo.chat("m1")));
        ProviderDescriptor d = ProviderDescriptor.openAiCompatible("x", "X", ProviderClass.APIKEY, "https://x", models);
        models.add(ModelInfo.chat("m2"));

        assertThat(d.models()).containsExactly(ModelInfo.chat("m1"));
        assertThatThrownBy(() -> d.models().add(ModelInfo.chat("m3"))).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void openAiCompatibleFactoryUsesTheBuiltInExecutorWithPassthroughAndNoOptIns_SH2() {
        ProviderDescriptor d = ProviderDescriptor.openAiCompatible("glm", "GLM", ProviderClass.OAUTH, "https://glm/v4",
                List.of(ModelInfo.chat("glm-4.6")));

        assertThat(d).isEqualTo(new ProviderDescriptor("glm", "GLM", ProviderClass.OAUTH, "https://glm/v4", "openai-compatible",
                List.of(ModelInfo.chat("glm-4.6")), true, false, false));
        assertThat(HostContext.OPENAI_COMPATIBLE).isEqualTo("openai-compatible");
    }

    @Test
    void copiesChangeOnlyTheNamedFields_ER6() {
        ProviderDescriptor d = withId("agentrouter");

        ProviderDescriptor exec = d.withExecutor("agentrouter-exec");
        assertThat(exec.executor()).isEqualTo("agentrouter-exec");
        assertThat(exec.withExecutor(d.executor())).isEqualTo(d);

        ProviderDescriptor optIns = d.withErrorRuleOptIns(true, true);
        assertThat(optIns.fullTextErrorRules()).isTrue();
        assertThat(optIns.honorsRuleScope()).isTrue();
        assertThat(optIns.withErrorRuleOptIns(false, false)).isEqualTo(d);
        assertThat(d.withErrorRuleOptIns(true, false).honorsRuleScope()).isFalse();
    }

    @Test
    void modelInfoValidatesItsId_PA3() {
        assertThat(ModelInfo.chat("gpt-4o")).isEqualTo(new ModelInfo("gpt-4o", ModelKind.CHAT));
        assertThat(ModelInfo.embedding("e")).isEqualTo(new ModelInfo("e", ModelKind.EMBEDDING));
        assertThatThrownBy(() -> ModelInfo.chat(" ")).isInstanceOf(IllegalArgumentException.class).hasMessage("model id is blank");
        assertThatThrownBy(() -> ModelInfo.chat("")).isInstanceOf(IllegalArgumentException.class);
        assertThatNullPointerException().isThrownBy(() -> ModelInfo.chat(null)).withMessage("id is null");
        assertThatNullPointerException().isThrownBy(() -> new ModelInfo("x", null)).withMessage("kind is null");
    }

    @Test
    void providerClassWireNamesAreCaseInsensitive_DM2() {
        assertThat(ProviderClass.fromWireName("oauth")).isEqualTo(ProviderClass.OAUTH);
        assertThat(ProviderClass.fromWireName("APIKEY")).isEqualTo(ProviderClass.APIKEY);
        assertThat(ProviderClass.fromWireName("Local")).isEqualTo(ProviderClass.LOCAL);
        assertThat(ProviderClass.LOCAL.wireName()).isEqualTo("local");
        assertThatThrownBy(() -> ProviderClass.fromWireName("api_key")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown provider class 'api_key' (expected oauth, apikey or local)");
        assertThatThrownBy(() -> ProviderClass.fromWireName(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void connectionFieldsAreKeptInOrderAndCopiedAndOlderFormsHaveNone_issue33() {
        ConnectionField lane = ConnectionField.builder("lowPriorityMode", ConnectionField.Type.BOOLEAN).label("Lane").description("d").build();
        ConnectionField org = ConnectionField.builder("organizationUUID", ConnectionField.Type.STRING).build();
        List<ConnectionField> fields = new ArrayList<>(List.of(lane, org));
        ProviderDescriptor d = ProviderDescriptor.builder("acme").defaultBaseUrl("https://acme.example/v1").connectionFields(fields).build();
        fields.clear();

        assertThat(d.connectionFields()).containsExactly(lane, org);
        assertThat(org.label()).as("the label defaults to the name").isEqualTo("organizationUUID");
        assertThat(org.description()).isEmpty();
        assertThat(d.toBuilder().build()).isEqualTo(d);
        assertThat(d.withExecutor("other").connectionFields()).containsExactly(lane, org);
        assertThat(withId("plain").connectionFields()).isEmpty();
    }

    @Test
    void aConnectionFieldNeedsAUsableNameAndNoProviderDeclaresOneTwice_issue33() {
        for (String bad : List.of("", "1st", "with space", "a-b", "a".repeat(65))) {
            assertThatThrownBy(() -> ConnectionField.builder(bad, ConnectionField.Type.STRING).build()).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatNullPointerException().isThrownBy(() -> ConnectionField.builder("x", null).build());
        ConnectionField f = ConnectionField.builder("x", ConnectionField.Type.INTEGER).build();
        assertThatThrownBy(() -> ProviderDescriptor.builder("acme").defaultBaseUrl("https://acme.example/v1").connectionFields(List.of(f, f))
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
    }
}
