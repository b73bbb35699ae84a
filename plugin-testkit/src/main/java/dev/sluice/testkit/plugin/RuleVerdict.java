package dev.sluice.testkit.plugin;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;

/**
 * What the runtime concludes from one upstream error of a provider (SPEC §5, §16): after the
 * plugin's restatement rules, the classifier with the plugin's error rules.
 *
 * @param status the status after restatement (the upstream's when no restatement rule matched)
 * @param restatementRule the id of the restatement rule that matched, or null
 * @param errorRule the id of the error rule that matched, or null
 * @param reason the failure reason
 * @param scope what the failure locks, as the runtime acts on it (a rule's scope only where the
 *     provider's descriptor honours it)
 * @param ruleScope the matched error rule's own scope, or null
 * @param scopeHonoured whether the matched rule's scope is acted on (the descriptor's
 *     {@code honorsRuleScope}); false when no rule matched
 * @param cooldownMs a cooldown the failure itself declares (a rule's {@code baseCooldownMs}, a
 *     subscription-quota text ...), or null when the runtime's backoff decides
 * @param retryAfterMs the retry hint the runtime read (headers, body), or null
 * @param fallback whether the runtime tries the next connection
 */
public record RuleVerdict(
        int status,
        String restatementRule,
        String errorRule,
        FailureReason reason,
        LockScope scope,
        LockScope ruleScope,
        boolean scopeHonoured,
        Long cooldownMs,
        Long retryAfterMs,
        boolean fallback) {
}
