package dev.sluice.plugin.opencode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import java.util.List;
import java.util.Map;
import dev.sluice.testkit.plugin.RuleEvaluator;
import dev.sluice.testkit.plugin.RuleVerdict;
import org.junit.jupiter.api.Test;

/** The plugin's contract: what it contributes, through the SPI only. */
class OpenCodePluginTest {

    private final OpenCodePlugin plugin = new OpenCodePlugin();

    @Test
    void itsModuleProvidesExactlyThePluginService_SH2() {
        var descriptor = OpenCodePlugin.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.provides()).hasSize(1);
        var provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo(ProviderPlugin.class.getName());
        assertThat(provides.providers()).containsExactly(OpenCodePlugin.class.getName());
        assertThat(descriptor.requires()).allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api"));
    }

    @Test
    void declaresTheCurrentSpiVersionAndAStableName_PA3() {
        assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
        assertThat(plugin.name()).isEqualTo("opencode");
    }

    @Test
    void contributesTheThreeOpencodeProvidersOfEB1() {
        assertThat(plugin.providers()).extracting(ProviderDescriptor::id)
                .containsExactly("opencode-zen", "opencode-go", "opencode-cli");
        for (ProviderDescriptor d : plugin.providers()) {
            assertThat(d.defaultClass()).isEqualTo(ProviderClass.APIKEY);
            assertThat(d.defaultBaseUrl()).isEqualTo("https://opencode.ai/zen/v1");
            assertThat(d.executor()).isEqualTo(HostContext.OPENAI_COMPATIBLE);
            assertThat(d.passthroughModels()).isTrue();
        }
    }

    @Test
    void declaresStatusAndHeaderOnlyRulesForEachFamilyProvider_ER1_ER2() {
        assertThat(plugin.errorRules()).hasSize(9);
        for (String provider : List.of("opencode-zen", "opencode-go", "opencode-cli")) {
            assertThat(plugin.errorRules()).filteredOn(r -> r.provider().equals(provider)).containsExactly(
                    new ErrorRule("quota_exhausted_remaining_requests", provider, 429, Map.of("x-ratelimit-remaining-requests", "0"),
                            List.of(), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null),
                    new ErrorRule("quota_exhausted_remaining_tokens", provider, 429, Map.of("x-ratelimit-remaining-tokens", "0"),
                            List.of(), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null),
                    new ErrorRule("status_429", provider, 429, Map.of(), List.of(), FailureReason.RATE_LIMIT_EXCEEDED,
                            LockScope.CONNECTION, null));
        }
        // status- and header-only: opencode is not a full-text provider, nor does it honour rule scopes (ER-2, ER-3)
        assertThat(plugin.errorRules()).allSatisfy(r -> assertThat(r.textMarkers()).isEmpty());
        assertThat(plugin.providers()).allSatisfy(d -> assertThat(d.fullTextErrorRules() || d.honorsRuleScope()).isFalse());
    }

    @Test
    void bucketsGoAndCliByEgressIp_EB1() {
        assertThat(plugin.egressBucketing()).singleElement().satisfies(hook -> {
            assertThat(hook.name()).isEqualTo("opencode-egress-ip");
            assertThat(hook.providers()).containsExactlyInAnyOrder("opencode-go", "opencode-cli");
            assertThat(hook.bucketKey("opencode-go", "127.0.0.2")).isEqualTo("127.0.0.2");
        });
        assertThat(plugin.restatementRules()).isEmpty();
    }

    @Test
    void a429WithoutRemainingRequestsIsAQuotaButItsConnectionScopeIsNotHonoured_ER1_ER3() {
        RuleEvaluator rules = RuleEvaluator.of(plugin);

        RuleVerdict quota = rules.evaluate("opencode-go", 429, Map.of("X-RateLimit-Remaining-Requests", "0"), "{}");
        RuleVerdict plain = rules.evaluate("opencode-go", 429, Map.of(), "{}");

        assertThat(quota.errorRule()).isEqualTo("quota_exhausted_remaining_requests");
        assertThat(quota.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(quota.ruleScope()).isEqualTo(LockScope.CONNECTION);
        assertThat(quota.scopeHonoured()).isFalse();
        assertThat(plain.errorRule()).isEqualTo("status_429");
        assertThat(plain.reason()).isEqualTo(FailureReason.RATE_LIMIT_EXCEEDED);
    }
}
