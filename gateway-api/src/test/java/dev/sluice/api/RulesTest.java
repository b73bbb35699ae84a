package dev.sluice.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.rules.RestatementRule;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Declarative rule records validate in the compact constructor (SPEC RS-2..RS-4, ER-1, EB-1, FC-1). */
class RulesTest {

    private static RestatementRule restatement(Set<Integer> from, int to, List<String> markers, long retryAfterMs) {
        return new RestatementRule("agentrouter-quota", "agentrouter", from, to, markers, List.of("无权访问模型"), retryAfterMs);
    }

    // ------------------------------------------------------------------ restatement rules

    @Test
    void validRestatementRuleKeepsItsFields_RS2() {
        RestatementRule r = restatement(Set.of(403, 400), 429, List.of("用户额度不足", "额度不足"), 60_000);

        assertThat(r.fromStatuses()).containsExactlyInAnyOrder(400, 403);
        assertThat(r.toStatus()).isEqualTo(429);
        assertThat(r.textMarkers()).containsExactly("用户额度不足", "额度不足");
        assertThat(r.excludeMarkers()).containsExactly("无权访问模型");
        assertThat(r.defaultRetryAfterMs()).isEqualTo(60_000);
    }

    @Test
    void restatementRuleNeedsFromStatusesAndTextMarkers_RS2() {
        assertThatThrownBy(() -> restatement(Set.of(), 429, List.of("x"), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("restatement rule agentrouter-quota: fromStatuses is empty");
        assertThatThrownBy(() -> restatement(Set.of(403), 429, List.of(), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("restatement rule agentrouter-quota: textMarkers is empty");
    }

    @Test
    void restatementTargetMustBeAnHttpStatus_RS2() {
        assertThat(restatement(Set.of(403), 100, List.of("x"), 0).toStatus()).isEqualTo(100);
        assertThat(restatement(Set.of(403), 599, List.of("x"), 0).toStatus()).isEqualTo(599);
        assertThatThrownBy(() -> restatement(Set.of(403), 99, List.of("x"), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("restatement rule agentrouter-quota: toStatus 99 is not an HTTP status");
        assertThatThrownBy(() -> restatement(Set.of(403), 600, List.of("x"), 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void restatementRetryAfterMustNotBeNegative_RS3() {
        assertThat(restatement(Set.of(403), 429, List.of("x"), 0).defaultRetryAfterMs()).isZero();
        assertThatThrownBy(() -> restatement(Set.of(403), 429, List.of("x"), -1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("restatement rule agentrouter-quota: defaultRetryAfterMs is negative");
    }

    @Test
    void restatementRuleNullsAreRefusedOrDefaulted_RS4() {
        assertThatNullPointerException().isThrownBy(() -> new RestatementRule(null, "p", Set.of(403), 429, List.of("x"), null, 0))
                .withMessage("id is null");
        assertThatNullPointerException().isThrownBy(() -> new RestatementRule("r", null, Set.of(403), 429, List.of("x"), null, 0))
                .withMessage("provider is null");
        assertThatNullPointerException().isThrownBy(() -> new RestatementRule("r", "p", null, 429, List.of("x"), null, 0))
                .withMessage("fromStatuses is null");
        assertThatNullPointerException().isThrownBy(() -> new RestatementRule("r", "p", Set.of(403), 429, null, null, 0))
                .withMessage("textMarkers is null");
        assertThat(new RestatementRule("r", "p", Set.of(403), 429, List.of("x"), null, 0).excludeMarkers()).isEmpty();
    }

    @Test
    void restatementRuleCopiesItsCollections_RS2() {
        List<String> markers = new ArrayList<>(List.of("a"));
        RestatementRule r = new RestatementRule("r", "p", Set.of(403), 429, markers, null, 0);
        markers.add("b");

        assertThat(r.textMarkers()).containsExactly("a");
        assertThatThrownBy(() -> r.textMarkers().add("c")).isInstanceOf(UnsupportedOperationException.class);
    }

    // ------------------------------------------------------------------ error rules

    @Test
    void errorRuleWithAnyOneConditionIsValid_ER1() {
        ErrorRule byStatus = new ErrorRule("opencode-429", "opencode-go", 429, null, null, FailureReason.RATE_LIMIT_EXCEEDED,
                LockScope.CONNECTION, null);
        ErrorRule byHeader = new ErrorRule("h", "minimax", null, Map.of("x-error", "limit"), null, FailureReason.RATE_LIMIT_EXCEEDED,
                LockScope.CONNECTION, null);
        ErrorRule byText = new ErrorRule("agentrouter-model-access-denied", "agentrouter", null, null, List.of("无权访问模型"),
                FailureReason.AUTH_ERROR, LockScope.MODEL, 21_600_000L);

        assertThat(byStatus.headers()).isEmpty();
        assertThat(byStatus.textMarkers()).isEmpty();
        assertThat(byHeader.headers()).containsExactlyEntriesOf(Map.of("x-error", "limit"));
        assertThat(byText.baseCooldownMs()).isEqualTo(21_600_000L);
        assertThat(byText.scope()).isEqualTo(LockScope.MODEL);
    }

    @Test
    void errorRuleWithoutAnyConditionIsRefusedNamingIt_ER1() {
        assertThatThrownBy(() -> new ErrorRule("empty-rule", "p", null, Map.of(), List.of(), FailureReason.BAD_REQUEST, LockScope.MODEL,
                null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("error rule empty-rule has no condition (status, headers or textMarkers)");
    }

    @Test
    void errorRuleCooldownMustNotBeNegative_ER1() {
        assertThat(new ErrorRule("z", "p", 429, null, null, FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, 0L).baseCooldownMs())
                .isZero();
        assertThatThrownBy(() -> new ErrorRule("neg", "p", 429, null, null, FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, -1L))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("error rule neg: baseCooldownMs is negative");
    }

    @Test
    void errorRuleRequiredFieldsAreNamedWhenNull_ER1() {
        assertThatNullPointerException().isThrownBy(() -> new ErrorRule(null, "p", 429, null, null, FailureReason.BAD_REQUEST,
                LockScope.MODEL, null)).withMessage("id is null");
        assertThatNullPointerException().isThrownBy(() -> new ErrorRule("r", null, 429, null, null, FailureReason.BAD_REQUEST,
                LockScope.MODEL, null)).withMessage("provider is null");
        assertThatNullPointerException().isThrownBy(() -> new ErrorRule("r", "p", 429, null, null, null, LockScope.MODEL, null))
                .withMessage("reason is null");
        assertThatNullPointerException().isThrownBy(() -> new ErrorRule("r", "p", 429, null, null, FailureReason.BAD_REQUEST, null, null))
                .withMessage("scope is null");
    }

    @Test
    void errorRuleCopiesItsCollections_ER1() {
        Map<String, String> headers = new HashMap<>(Map.of("a", "b"));
        ErrorRule r = new ErrorRule("r", "p", null, headers, null, FailureReason.BAD_REQUEST, LockScope.MODEL, null);
        headers.put("c", "d");

        assertThat(r.headers()).containsExactlyEntriesOf(Map.of("a", "b"));
    }

    // ------------------------------------------------------------------ enums and hooks

    @Test
    void failureReasonWireNamesAreTheSpecNames_FC1() {
        assertThat(FailureReason.RATE_LIMIT_EXCEEDED.wireName()).isEqualTo("rate_limit_exceeded");
        assertThat(FailureReason.QUOTA_EXHAUSTED.wireName()).isEqualTo("quota_exhausted");
        assertThat(FailureReason.NOT_FOUND_LOCAL.wireName()).isEqualTo("not_found_local");
        assertThat(List.of(FailureReason.values())).extracting(FailureReason::wireName).containsExactly(
                "rate_limit_exceeded", "quota_exhausted", "concurrency_limited", "credits_exhausted", "auth_error", "forbidden",
                "request_rejected", "banned", "expired", "not_found", "not_found_local", "context_overflow", "model_access_denied",
                "bad_request", "server_error", "timeout", "network_error", "stream_stall", "quality_failure");
    }

    @Test
    void lockScopeWireNamesAreTheSpecNames_ER1() {
        assertThat(List.of(LockScope.values())).extracting(LockScope::wireName).containsExactly("model", "connection", "provider", "exact");
    }

    @Test
    void egressBucketingDefaultsToBucketingByTheIpItself_EB1() {
        EgressBucketing hook = new EgressBucketing() {
            @Override
            public String name() {
                return "opencode";
            }

            @Override
            public Set<String> providers() {
                return Set.of("opencode-go", "opencode-cli");
            }
        };

        assertThat(hook.bucketKey("opencode-go", "203.0.113.9")).isEqualTo("203.0.113.9");
    }
}
