package dev.sluice.plugin.agentrouter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.rules.RestatementRule;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.sluice.testkit.plugin.RuleEvaluator;
import dev.sluice.testkit.plugin.RuleVerdict;
import org.junit.jupiter.api.Test;

/** The plugin's contract: what it contributes, through the SPI only. */
class AgentRouterPluginTest {

    private final AgentRouterPlugin plugin = new AgentRouterPlugin();

    @Test
    void itsModuleProvidesExactlyThePluginService_SH2() {
        var descriptor = AgentRouterPlugin.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.provides()).hasSize(1);
        var provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo(ProviderPlugin.class.getName());
        assertThat(provides.providers()).containsExactly(AgentRouterPlugin.class.getName());
        assertThat(descriptor.requires()).allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api"));
    }

    @Test
    void declaresTheCurrentSpiVersionAndAStableName_PA3() {
        assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
        assertThat(plugin.name()).isEqualTo("agentrouter");
    }

    @Test
    void contributesTheAgentrouterProviderOnTheBuiltInOpenAiCompatibleExecutor_DM1b() {
        assertThat(plugin.providers()).hasSize(1);
        ProviderDescriptor d = plugin.providers().get(0);
        assertThat(d.id()).isEqualTo("agentrouter");
        assertThat(d.defaultClass()).isEqualTo(ProviderClass.APIKEY);
        assertThat(d.defaultBaseUrl()).isEqualTo("https://agentrouter.org/v1");
        assertThat(d.executor()).isEqualTo(HostContext.OPENAI_COMPATIBLE);
        assertThat(d.passthroughModels()).isTrue();
        assertThat(d.models()).extracting(ModelInfo::id).contains("claude-sonnet-4-5");
    }

    @Test
    void restatesQuota403And400To429WithASixtySecondClientWindowButNeverModelAccessDenial_RS1_RS3_RS4() {
        assertThat(plugin.executors()).isEmpty();
        assertThat(plugin.restatementRules()).containsExactly(new RestatementRule("agentrouter-quota-misstatus", "agentrouter",
                Set.of(400, 403), 429, List.of("用户额度不足", "额度不足"), List.of("无权访问模型"), 60_000));
    }

    @Test
    void declaresTheModelAccessAndUserQuotaRules_ER1_ER4() {
        assertThat(plugin.errorRules()).containsExactly(
                new ErrorRule("agentrouter-model-access-denied", "agentrouter", null, Map.of(), List.of("无权访问模型"),
                        FailureReason.AUTH_ERROR, LockScope.MODEL, 21_600_000L),
                new ErrorRule("agentrouter-user-quota-exhausted", "agentrouter", null, Map.of(), List.of("用户额度不足", "额度不足"),
                        FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null));
        assertThat(plugin.egressBucketing()).isEmpty();
    }

    @Test
    void optsIntoFullTextMatchingAndHonouredScopes_ER2_ER3_ER6() {
        ProviderDescriptor d = plugin.providers().get(0);
        assertThat(d.fullTextErrorRules()).isTrue();
        assertThat(d.honorsRuleScope()).isTrue();
    }

    // ---- the rules as the runtime applies them (sluice-plugin-testkit's RuleEvaluator)

    private final RuleEvaluator rules = RuleEvaluator.of(plugin);

    @Test
    void aQuota403IsRestatedTo429AndCoolsTheConnection_RS1_ER1() {
        RuleVerdict v = rules.evaluate("agentrouter", 403, Map.of(), "{\"error\":{\"message\":\"用户额度不足, 请充值\"}}");

        assertThat(v.status()).isEqualTo(429);
        assertThat(v.restatementRule()).isEqualTo("agentrouter-quota-misstatus");
        assertThat(v.errorRule()).isEqualTo("agentrouter-user-quota-exhausted");
        assertThat(v.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(v.scope()).isEqualTo(LockScope.CONNECTION);
        assertThat(v.scopeHonoured()).isTrue();
    }

    @Test
    void aModelAccessDenialIsNotRestatedAndLocksTheModelForSixHours_RS4_ER4() {
        RuleVerdict v = rules.evaluate("agentrouter", 403, Map.of(), "{\"error\":{\"message\":\"无权访问模型 claude-opus\"}}");

        assertThat(v.status()).isEqualTo(403);
        assertThat(v.restatementRule()).isNull();
        assertThat(v.errorRule()).isEqualTo("agentrouter-model-access-denied");
        assertThat(v.scope()).isEqualTo(LockScope.MODEL);
        assertThat(v.cooldownMs()).isEqualTo(21_600_000L);
    }
}
