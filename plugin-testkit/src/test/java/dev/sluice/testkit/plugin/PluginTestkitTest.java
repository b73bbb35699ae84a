package dev.sluice.testkit.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.Credentials;
import dev.sluice.api.ExecutorCustomizer;
import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.rules.RestatementRule;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PluginTestkitTest {

    /** A reseller: a 400 "busy" is restated as a 429; "quota" errors lock the connection. */
    static final class Reseller implements ProviderPlugin {
        private final boolean honour;

        Reseller(boolean honour) {
            this.honour = honour;
        }

        @Override
        public String name() {
            return "reseller";
        }

        @Override
        public int spiVersion() {
            return SPI_VERSION;
        }

        @Override
        public List<ProviderDescriptor> providers() {
            return List.of(ProviderDescriptor.builder("reseller").defaultBaseUrl("https://r.test/v1")
                    .models(List.of(ModelInfo.chat("r-1"))).errorRuleOptIns(true, honour).build());
        }

        @Override
        public List<RestatementRule> restatementRules() {
            return List.of(new RestatementRule("busy", "reseller", Set.of(400), 429, List.of("server busy"), List.of(), 5_000));
        }

        @Override
        public List<ErrorRule> errorRules() {
            return List.of(new ErrorRule("quota", "reseller", 429, Map.of(), List.of("quota used up"), FailureReason.QUOTA_EXHAUSTED,
                    LockScope.CONNECTION, 600_000L));
        }
    }

    @Test
    void restatementThenErrorRuleGiveTheRuntimesVerdict() {
        RuleEvaluator rules = RuleEvaluator.of(new Reseller(true));

        RuleVerdict busy = rules.evaluate("reseller", 400, Map.of(), "{\"error\":{\"message\":\"server busy, retry\"}}");
        RuleVerdict quota = rules.evaluate("reseller", 429, Map.of(), "{\"error\":{\"message\":\"your quota used up\"}}");

        assertThat(busy.status()).isEqualTo(429);
        assertThat(busy.restatementRule()).isEqualTo("busy");
        assertThat(busy.reason()).isEqualTo(FailureReason.RATE_LIMIT_EXCEEDED);
        assertThat(busy.errorRule()).isNull();
        assertThat(quota.errorRule()).isEqualTo("quota");
        assertThat(quota.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(quota.scope()).isEqualTo(LockScope.CONNECTION);
        assertThat(quota.scopeHonoured()).isTrue();
        assertThat(quota.cooldownMs()).isEqualTo(600_000L);
    }

    @Test
    void aRulesScopeIsOnlyInformationalWhenTheDescriptorDoesNotHonourIt_ER3() {
        RuleVerdict v = RuleEvaluator.of(new Reseller(false)).evaluate("reseller", 429, Map.of("Retry-After", "7"),
                "{\"error\":{\"message\":\"quota used up\"}}");

        assertThat(v.errorRule()).isEqualTo("quota");
        assertThat(v.ruleScope()).isEqualTo(LockScope.CONNECTION);
        assertThat(v.scopeHonoured()).isFalse();
        assertThat(v.scope()).isNotEqualTo(LockScope.CONNECTION);
        assertThat(v.retryAfterMs()).isEqualTo(7_000L);
    }

    /** Zenith's wire says "credit_exhausted" for a spend cap that resets within the hour. */
    private static final ErrorRule SPEND_CAP = new ErrorRule("spend-cap", "zenith", 429, Map.of(), List.of("credit_exhausted"),
            FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, 3_600_000L);
    private static final ErrorRule CATCH_ALL = new ErrorRule("any-429", "zenith", 429, Map.of(), List.of(),
            FailureReason.RATE_LIMIT_EXCEEDED, LockScope.MODEL, null);
    private static final String CREDIT_BODY = "{\"error\":{\"code\":\"credit_exhausted\",\"message\":\"credit_exhausted: top up\"}}";

    @Test
    void aPluginsRuleForItsOwnProviderDecidesAheadOfTheBuiltinPatternsAndNamesWhatItShadowed_issue27() {
        ProviderDescriptor zenith = ProviderDescriptor.builder("zenith").defaultBaseUrl("https://z.test/v1")
                .models(List.of(ModelInfo.chat("z-1"))).errorRuleOptIns(true, true).build();
        RuleEvaluator rules = RuleEvaluator.of(List.of(zenith), List.of(), List.of(SPEND_CAP, CATCH_ALL), java.time.InstantSource.system());

        RuleVerdict v = rules.evaluate("zenith", 429, Map.of(), CREDIT_BODY);

        assertThat(v.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(v.terminal()).isFalse();
        assertThat(v.errorRule()).isEqualTo("spend-cap");
        assertThat(v.cooldownMs()).isEqualTo(3_600_000L);
        assertThat(v.decidedBy()).startsWith("error rule 'spend-cap' of provider 'zenith'").contains("ahead of the built-in patterns");
        assertThat(v.shadowed()).singleElement().asString().startsWith("error rule 'any-429' of provider 'zenith'");
    }

    @Test
    void aStatusOnlyRuleOfTheOwnProviderOnlyRefinesAndLeavesARecognisedCreditTextTerminal_issue27() {
        ProviderDescriptor zenith = ProviderDescriptor.builder("zenith").defaultBaseUrl("https://z.test/v1")
                .models(List.of(ModelInfo.chat("z-1"))).errorRuleOptIns(true, true).build();
        RuleEvaluator rules = RuleEvaluator.of(List.of(zenith), List.of(), List.of(CATCH_ALL), java.time.InstantSource.system());

        RuleVerdict credit = rules.evaluate("zenith", 429, Map.of(), CREDIT_BODY);
        RuleVerdict plain = rules.evaluate("zenith", 429, Map.of(), "{\"error\":{\"message\":\"slow down\"}}");

        assertThat(credit.reason()).isEqualTo(FailureReason.CREDITS_EXHAUSTED);
        assertThat(credit.shadowed()).containsExactly("error rule 'any-429' of provider 'zenith'");
        assertThat(plain.errorRule()).isEqualTo("any-429");
        assertThat(plain.decidedBy()).isEqualTo("error rule 'any-429' of provider 'zenith'");
    }

    @Test
    void aRuleForAProviderThePluginDoesNotDeclareCannotUndoATerminalVerdictAndSaysItWasShadowed_issue27() {
        ProviderDescriptor other = ProviderDescriptor.builder("other").defaultBaseUrl("https://o.test/v1")
                .models(List.of(ModelInfo.chat("o-1"))).errorRuleOptIns(true, true).build();
        RuleEvaluator rules = RuleEvaluator.of(List.of(other), List.of(), List.of(SPEND_CAP), java.time.InstantSource.system());

        RuleVerdict v = rules.evaluate("zenith", 429, Map.of(), CREDIT_BODY);

        assertThat(v.reason()).isEqualTo(FailureReason.CREDITS_EXHAUSTED);
        assertThat(v.terminal()).isTrue();
        assertThat(v.errorRule()).isNull();
        assertThat(v.decidedBy()).isEqualTo("built-in pattern: out-of-credit text -> credits_exhausted (terminal); it outranks the rule"
                + " that matched");
        assertThat(v.shadowed()).containsExactly("error rule 'spend-cap' of provider 'zenith'");
    }

    @Test
    void headersAndQueryParametersAreComputedFromEachConnectionsSettingsAndTheRequest_issue27() throws Exception {
        TestingHostContext host = TestingHostContext.builder("zenith").build();
        ProviderExecutor executor = host.builtinExecutor(HostContext.OPENAI_COMPATIBLE, ExecutorCustomizer.none()
                .withHeader("X-Zenith-Org", "fixed-value-is-replaced")
                .withHeaders((target, call) -> Map.of("X-Zenith-Org", target.setting("org"), "X-Zenith-Model", call.model()))
                .withQueryParameters((target, call) -> Map.of("project", target.setting("project")))).orElseThrow();

        try (MockUpstream upstream = MockUpstream.start()) {
            upstream.setDefault(MockResponse.completion("hello"));
            for (String org : List.of("org-a", "org b")) {
                UpstreamTarget target = new UpstreamTarget("c-" + org, "zenith", ProviderClass.APIKEY, upstream.baseUrl() + "/v1",
                        new Credentials("sk-test", null, null, null), Map.of("org", org, "project", "p/" + org));
                ChatOutcome outcome = executor.chat(ChatCall.builder(ChatRequest.builder("z-1",
                        List.of(ChatMessage.text(Role.USER, "hi"))).build(), target).build());
                assertThat(outcome).isInstanceOf(ChatOutcome.Completed.class);

                RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
                assertThat(sent.header("x-zenith-org")).isEqualTo(org);
                assertThat(sent.header("x-zenith-model")).isEqualTo("z-1");
                assertThat(sent.path()).isEqualTo("/v1/chat/completions?project=p%2F" + org.replace(" ", "%20"));
            }
        }
    }

    @Test
    void aComputedHeaderTheRuntimeSetsItselfFailsTheAttemptNamingIt_issue27() {
        TestingHostContext host = TestingHostContext.builder("zenith").build();
        ProviderExecutor executor = host.builtinExecutor(HostContext.OPENAI_COMPATIBLE, ExecutorCustomizer.none()
                .withHeaders((target, call) -> Map.of("Authorization", "Bearer stolen"))).orElseThrow();
        UpstreamTarget target = new UpstreamTarget("c1", "zenith", ProviderClass.APIKEY, "http://127.0.0.1:9/v1",
                new Credentials("sk-test", null, null, null), Map.of());

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> executor.chat(ChatCall.builder(ChatRequest.builder("z-1",
                List.of(ChatMessage.text(Role.USER, "hi"))).build(), target).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("header 'Authorization' is set by the runtime");
    }

    @Test
    void theTestingHostServesTheRealBuiltinExecutorCustomised() throws Exception {
        TestingHostContext host = TestingHostContext.builder("reseller").setting("client", "kit").build();
        ProviderExecutor executor = host.builtinExecutor(HostContext.OPENAI_COMPATIBLE,
                ExecutorCustomizer.none().withHeader("X-Client", host.settings().get("client", "?"))).orElseThrow();

        try (MockUpstream upstream = MockUpstream.start()) {
            upstream.enqueue(MockResponse.completion("hello"));
            UpstreamTarget target = new UpstreamTarget("c1", "reseller", ProviderClass.APIKEY, upstream.baseUrl() + "/v1",
                    new Credentials("sk-test", null, null, null), Map.of());
            ChatOutcome outcome = executor.chat(ChatCall.builder(ChatRequest.builder("r-1",
                    List.of(ChatMessage.text(Role.USER, "hi"))).build(), target).build());

            assertThat(outcome).isInstanceOfSatisfying(ChatOutcome.Completed.class,
                    c -> assertThat(c.response().choices().get(0).message().textContent()).isEqualTo("hello"));
            RecordedRequest sent = upstream.takeRequest(Duration.ofSeconds(5));
            assertThat(sent.header("x-client")).isEqualTo("kit");
            assertThat(sent.header("authorization")).isEqualTo("Bearer sk-test");
        }
        host.testClock().advance(Duration.ofMinutes(1));
        assertThat(host.clock().instant()).isEqualTo(java.time.Instant.parse("2026-01-01T00:01:00Z"));
        assertThat(host.credentialUpdates().orElseThrow().oauthRenewed("c1", "a", null, 1L)).isTrue();
        assertThat(host.renewals()).containsExactly(new TestingHostContext.Renewal("c1", "a", null, 1L));
    }
}
