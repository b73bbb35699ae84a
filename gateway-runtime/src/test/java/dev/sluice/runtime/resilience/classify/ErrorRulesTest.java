package dev.sluice.runtime.resilience.classify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Provider error rules in the classifier (SPEC §16.2 ER-1…ER-6), with agentrouter's and opencode's rules. */
public class ErrorRulesTest {

    public static final ErrorRule MODEL_ACCESS = new ErrorRule("agentrouter-model-access-denied", "agentrouter", null, Map.of(),
            List.of("无权访问模型"), FailureReason.AUTH_ERROR, LockScope.MODEL, 21_600_000L);
    public static final ErrorRule USER_QUOTA = new ErrorRule("agentrouter-user-quota-exhausted", "agentrouter", null, Map.of(),
            List.of("用户额度不足", "额度不足"), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null);
    static final ErrorRule OPENCODE_429 = new ErrorRule("status_429", "opencode-go", 429, Map.of(), List.of(),
            FailureReason.RATE_LIMIT_EXCEEDED, LockScope.CONNECTION, null);
    static final ErrorRule OPENCODE_NO_REQUESTS = new ErrorRule("quota_exhausted_remaining_requests", "opencode-go", 429,
            Map.of("x-ratelimit-remaining-requests", "0"), List.of(), FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null);
    /** A text rule on a provider that did not opt into full text: it must never see the body. */
    static final ErrorRule OPENCODE_TEXT = new ErrorRule("opencode-endpoint-unavailable", "opencode-go", 400, Map.of(),
            List.of("endpoint is unavailable"), FailureReason.SERVER_ERROR, LockScope.MODEL, 300_000L);

    private final AtomicReference<List<ErrorRule>> operator = new AtomicReference<>(List.of());
    private final ErrorRules rules = new ErrorRules(List.of(MODEL_ACCESS, USER_QUOTA, OPENCODE_NO_REQUESTS, OPENCODE_429, OPENCODE_TEXT),
            Set.of("agentrouter"), Set.of("agentrouter"), operator::get, Set.of());
    private final FailureClassifier withRules = new FailureClassifier(InstantSource.fixed(Instant.EPOCH), rules);
    private final FailureClassifier without = new FailureClassifier(InstantSource.fixed(Instant.EPOCH), ErrorRules.NONE);

    private static UpstreamError error(int status, Map<String, List<String>> headers, String body) {
        return UpstreamError.builder(new ResponseHead(status, headers)).body(body).build();
    }

    private Verdict classify(String provider, UpstreamError e) {
        return withRules.classify(provider, ProviderClass.APIKEY, e);
    }

    @Test
    void modelAccessDeniedLocksTheModelForSixHoursAsDeclared_ER1_ER4() {
        Verdict v = classify("agentrouter", error(403, Map.of(), "{\"error\":{\"message\":\"无权访问模型 claude-opus-4-1\"}}"));
        assertThat(v).isEqualTo(new Verdict(FailureReason.AUTH_ERROR, 403, true, null, null, 21_600_000L, LockScope.MODEL, false, false,
                true, false, LockScope.MODEL));
    }

    /** (A 400 with these markers reaches the classifier restated to 429, RS-1.) */
    @ParameterizedTest
    @ValueSource(ints = {403, 429})
    void userQuotaIsATransientConnectionQuota_ER1_ER3(int status) {
        Verdict v = classify("agentrouter", error(status, Map.of(), "{\"error\":{\"message\":\"用户额度不足\"}}"));
        assertThat(v.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(v.lockScope()).isEqualTo(LockScope.CONNECTION);
        assertThat(v.ruleScope()).isEqualTo(LockScope.CONNECTION);
        assertThat(v.cooldownMs()).isNull();
        assertThat(v.permanent()).isFalse();
        assertThat(v.creditsExhausted()).isFalse();
        assertThat(v.fallback()).isTrue();
        assertThat(v.countsForBreaker()).isFalse();
    }

    @Test
    void aRuleNeverMakesAVerdictTerminalNorUndoesATerminalOne_ER3() {
        ErrorRule terminalish = new ErrorRule("bad-idea", "agentrouter", null, Map.of(), List.of("xyz-marker", "余额不足"),
                FailureReason.CREDITS_EXHAUSTED, LockScope.CONNECTION, null);
        FailureClassifier c = new FailureClassifier(InstantSource.fixed(Instant.EPOCH),
                new ErrorRules(List.of(terminalish), Set.of("agentrouter"), Set.of("agentrouter"), List::of, Set.of()));
        Verdict v = c.classify("agentrouter", ProviderClass.APIKEY, error(429, Map.of(), "slow down xyz-marker"));
        assertThat(v.reason()).isEqualTo(FailureReason.CREDITS_EXHAUSTED);
        assertThat(v.creditsExhausted()).isFalse();
        assertThat(v.permanent()).isFalse();
        assertThat(v.ruleScope()).isEqualTo(LockScope.CONNECTION);
        // a terminal verdict of the built-in tables stays what it is
        Verdict broke = c.classify("agentrouter", ProviderClass.APIKEY, error(402, Map.of(), "余额不足"));
        assertThat(broke.creditsExhausted()).isTrue();
        assertThat(broke.ruleScope()).isNull();
    }

    @Test
    void aConcurrencyLimitStaysOneWhateverTheStatusRule_CC4_ER1() {
        Verdict v = classify("opencode-go", error(429, Map.of(), "{\"error\":{\"message\":\"Too many concurrent requests\"}}"));
        assertThat(v.reason()).isEqualTo(FailureReason.CONCURRENCY_LIMITED);
        assertThat(v.ruleScope()).isNull();
    }

    @Test
    void serviceLevelAndRequestScopedVerdictsChangeOnlyForASpecificRule_ER1_BO7() {
        // a provider outage mentioning quota is still an outage
        Verdict outage = classify("agentrouter", error(503, Map.of(), "上游额度不足 upstream overloaded"));
        assertThat(outage.reason()).isEqualTo(FailureReason.SERVER_ERROR);
        assertThat(outage.countsForBreaker()).isTrue();
        // a status-only operator rule never makes one client's context overflow cool the account
        operator.set(List.of(new ErrorRule("op-400", "glm", 400, Map.of(), List.of(), FailureReason.QUOTA_EXHAUSTED,
                LockScope.CONNECTION, null)));
        UpstreamError overflow = error(400, Map.of(), "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\"}}");
        assertThat(classify("glm", overflow)).isEqualTo(without.classify("glm", ProviderClass.APIKEY, overflow));
        // a route the key may not use stays a no-fallback answer
        UpstreamError route = error(403, Map.of(), "You are not authorized for this route 额度不足");
        assertThat(classify("agentrouter", route).fallback()).isFalse();
    }

    @Test
    void anOperatorRuleDoesNotChangeWhatThePluginRulesOfItsProviderSee_ER2_ER5() {
        operator.set(List.of(new ErrorRule("op-402", "opencode-go", 402, Map.of(), List.of(), FailureReason.QUOTA_EXHAUSTED,
                LockScope.CONNECTION, null)));
        Verdict plain = classify("opencode-go", error(429, Map.of(), "{\"error\":{\"message\":\"Too many requests\"}}"));
        assertThat(plain.lockScope()).isEqualTo(LockScope.MODEL);
        UpstreamError e = error(400, Map.of(), "{\"error\":{\"message\":\"The endpoint is unavailable\"}}");
        assertThat(classify("opencode-go", e)).isEqualTo(without.classify("opencode-go", ProviderClass.APIKEY, e));
    }

    @Test
    void statusOnlyRuleMakesAPlain429AConnectionRateLimitButKeepsAQuota_ER1_BO5() {
        Verdict plain = classify("opencode-go", error(429, Map.of(), "{\"error\":{\"message\":\"Too many requests\"}}"));
        assertThat(plain.reason()).isEqualTo(FailureReason.RATE_LIMIT_EXCEEDED);
        assertThat(plain.ruleScope()).isEqualTo(LockScope.CONNECTION);
        // opencode does not honour rule scopes (ER-3): the built-in scope stays
        assertThat(plain.lockScope()).isEqualTo(LockScope.MODEL);
        Verdict quota = classify("opencode-go", error(429, Map.of(), "{\"error\":{\"message\":\"Usage limit reached for your plan\"}}"));
        assertThat(quota.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(quota.cooldownMs()).isEqualTo(3_600_000L);
    }

    @Test
    void headerRulesMatchOnTheAnnouncedValue_ER1() {
        Verdict v = classify("opencode-go", error(429, Map.of("x-ratelimit-remaining-requests", List.of("0")), "slow down"));
        assertThat(v.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        Verdict other = classify("opencode-go", error(429, Map.of("x-ratelimit-remaining-requests", List.of("7")), "slow down"));
        assertThat(other.reason()).isEqualTo(FailureReason.RATE_LIMIT_EXCEEDED);
    }

    @Test
    void textRulesSeeTheBodyOnlyForFullTextProviders_ER2() {
        UpstreamError e = error(400, Map.of(), "{\"error\":{\"message\":\"The endpoint is unavailable\"}}");
        assertThat(classify("opencode-go", e)).isEqualTo(without.classify("opencode-go", ProviderClass.APIKEY, e));
    }

    @Test
    void anUnlistedProviderWithTextRulesClassifiesExactlyAsWithoutRules_ER2() {
        ErrorRule anyStatus = new ErrorRule("text-anywhere", "opencode-zen", null, Map.of(), List.of("用户额度不足", "quota", "rate limit"),
                FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, 60_000L);
        ErrorRule on400 = new ErrorRule("text-400", "opencode-zen", 400, Map.of(), List.of("endpoint is unavailable"),
                FailureReason.SERVER_ERROR, LockScope.MODEL, 300_000L);
        FailureClassifier textOnly = new FailureClassifier(InstantSource.fixed(Instant.EPOCH),
                new ErrorRules(List.of(anyStatus, on400), Set.of(), Set.of(), List::of, Set.of()));
        List<UpstreamError> errors = new ArrayList<>();
        for (int status : new int[] {400, 401, 402, 403, 404, 408, 429, 500, 503}) {
            errors.add(error(status, Map.of(), "{\"error\":{\"message\":\"用户额度不足 quota rate limit endpoint is unavailable\"}}"));
            errors.add(error(status, Map.of("x-ratelimit-remaining-requests", List.of("0")), "plain"));
        }
        for (UpstreamError e : errors) {
            assertThat(textOnly.classify("opencode-zen", ProviderClass.APIKEY, e)).isEqualTo(without.classify("opencode-zen", ProviderClass.APIKEY, e));
        }
    }

    @Test
    void operatorRulesSeeTheFullTextHonourTheirScopeAndComeFirst_ER5() {
        operator.set(List.of(new ErrorRule("op-1", "glm", 400, Map.of(), List.of("model is unavailable"), FailureReason.QUOTA_EXHAUSTED,
                LockScope.CONNECTION, 300_000L)));
        Verdict v = classify("glm", error(400, Map.of(), "{\"error\":{\"message\":\"upstream request failed: model is unavailable.\"}}"));
        assertThat(v.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(v.lockScope()).isEqualTo(LockScope.CONNECTION);
        assertThat(v.cooldownMs()).isEqualTo(300_000L);
        assertThat(v.fallback()).isTrue();
        // before the plugin's rules of the same provider
        operator.set(List.of(new ErrorRule("op-2", "agentrouter", null, Map.of(), List.of("额度不足"), FailureReason.RATE_LIMIT_EXCEEDED,
                LockScope.MODEL, 5_000L)));
        Verdict first = classify("agentrouter", error(429, Map.of(), "用户额度不足"));
        assertThat(first.ruleScope()).isEqualTo(LockScope.MODEL);
        assertThat(first.cooldownMs()).isEqualTo(5_000L);
    }

    @Test
    void aDeactivatedAccountStaysBannedWhateverTheRules_ER1_CC6() {
        Verdict v = classify("agentrouter", error(403, Map.of(), "Your account has been deactivated 额度不足"));
        assertThat(v.reason()).isEqualTo(FailureReason.BANNED);
    }

    @ParameterizedTest(name = "x-model-quota-remaining: {0} → quota {1}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "a=0,b=42 | true", "abab6.5s=42, MiniMax-M2=0 | true", "a=00 | true", "a=10,b=42 | false", "a=5 | false", "m=0.5 | false"})
    void minimaxQuotaHeaderWithAnyCountZeroIsAQuota_ER1(String header, boolean quota) {
        FailureClassifier c = new FailureClassifier(InstantSource.fixed(Instant.EPOCH),
                new ErrorRules(dev.sluice.runtime.routing.BuiltinProviders.ERROR_RULES, Set.of(), Set.of(), List::of, Set.of()));
        Verdict v = c.classify("minimax", ProviderClass.APIKEY, error(429, Map.of("x-model-quota-remaining", List.of(header)),
                "{\"base_resp\":{\"status_code\":1002,\"status_msg\":\"rate limit exceeded\"}}"));
        assertThat(v.reason()).isEqualTo(quota ? FailureReason.QUOTA_EXHAUSTED : FailureReason.RATE_LIMIT_EXCEEDED);
        // ER-3: minimax does not honour rule scopes: the scope is informational
        assertThat(v.ruleScope()).isEqualTo(quota ? LockScope.MODEL : null);
    }

    @Test
    void aHeaderConditionIsAValueAnAsteriskOrATildeRegex_ER1() {
        assertThat(ErrorRules.headerMatches("*", "anything")).isTrue();
        assertThat(ErrorRules.headerMatches("YES", "yes")).isTrue();
        assertThat(ErrorRules.headerMatches("yes", "yes please")).isFalse();
        assertThat(ErrorRules.headerMatches("~^over", "Over-limit")).isTrue();
        assertThat(ErrorRules.headerMatches("~^over", "not over")).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ErrorRule("bad", "p", 429, Map.of("h", "~(unclosed"), List.of(),
                FailureReason.RATE_LIMIT_EXCEEDED, LockScope.MODEL, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header h is not a valid regular expression");
    }

    @Test
    void anOwnProvidersTextRuleDecidesAheadOfTheBuiltinCreditTextButAStatusOnlyRuleOnlyRefines_issue27() {
        ErrorRule spendCap = new ErrorRule("spend-cap", "opencode-go", 429, Map.of(), List.of("credit_exhausted"),
                FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, 3_600_000L);
        ErrorRules own = new ErrorRules(List.of(spendCap, OPENCODE_429), Set.of("opencode-go"), Set.of("opencode-go"), List::of,
                Set.of(spendCap, OPENCODE_429));
        FailureClassifier classifier = new FailureClassifier(InstantSource.fixed(Instant.EPOCH), own);
        String credit = "{\"error\":{\"message\":\"credit_exhausted: top up your account\"}}";
        String broke = "{\"error\":{\"message\":\"Your credit balance is too low\"}}";

        Verdict capped = classifier.classify("opencode-go", ProviderClass.APIKEY, error(429, Map.of(), credit));
        Verdict empty = classifier.classify("opencode-go", ProviderClass.APIKEY, error(429, Map.of(), broke));

        assertThat(capped.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(capped.creditsExhausted()).isFalse();
        assertThat(capped.cooldownMs()).isEqualTo(3_600_000L);
        // only the catch-all matches: the built-in out-of-credit verdict stays terminal
        assertThat(empty.creditsExhausted()).isTrue();
        assertThat(without.classify("opencode-go", ProviderClass.APIKEY, error(429, Map.of(), credit)).creditsExhausted()).isTrue();
        dev.sluice.runtime.resilience.classify.ClassifierExplanation why = classifier.explain("opencode-go", ProviderClass.APIKEY, error(429, Map.of(), broke));
        assertThat(why.decidedBy()).startsWith("built-in pattern: out-of-credit text -> credits_exhausted (terminal)");
        assertThat(why.shadowed()).containsExactly("error rule 'status_429' of provider 'opencode-go'");
    }
}
