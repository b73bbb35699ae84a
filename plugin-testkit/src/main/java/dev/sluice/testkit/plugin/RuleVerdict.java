package dev.sluice.testkit.plugin;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;

/**
 * What the runtime concludes from one upstream error of a provider (SPEC §5, §16): after the
 * plugin's restatement rules, the classifier with the plugin's error rules.
 *
 * <p>Precedence (issue 27): operator rules first; then a plugin's rules for a provider that same
 * plugin declares, which decide ahead of the built-in text patterns (the provider knows its own
 * wire best); then the built-in classifier, which other rules may refine but never turn from a
 * terminal verdict (credits, deactivation) into a transient one. {@link #decidedBy()} names what
 * decided, {@link #shadowed()} every other rule that matched, so a rule that matched but lost
 * reads differently from one that did not match at all.
 *
 * @param status the status after restatement (the upstream's when no restatement rule matched)
 * @param restatementRule the id of the restatement rule that matched, or null
 * @param errorRule the id of the error rule that decided, or null when the built-in classifier
 *     did (see {@link #decidedBy()} and {@link #shadowed()} for rules that matched but lost)
 * @param reason the failure reason
 * @param scope what the failure locks, as the runtime acts on it: {@code EXACT} this
 *     connection+model only, {@code MODEL} the model on this connection, {@code CONNECTION} the
 *     whole connection, {@code PROVIDER} every connection of the provider. A rule's own scope is
 *     used only where the provider's descriptor sets {@code honorsRuleScope}; otherwise it is the
 *     scope the built-in classifier gives the reason
 * @param ruleScope the deciding error rule's own scope, or null
 * @param scopeHonoured whether the deciding rule's scope is acted on (the descriptor's
 *     {@code honorsRuleScope}); false when no rule decided
 * @param cooldownMs a cooldown the failure itself declares (a rule's {@code baseCooldownMs}, a
 *     subscription-quota text ...), or null when the runtime's backoff decides
 * @param retryAfterMs the retry hint the runtime read (headers, body), or null
 * @param fallback whether the runtime tries the request on the next connection or combo target
 *     (false for a request-scoped failure such as a malformed request: every target would refuse
 *     it too, so the client gets the error at once)
 * @param decidedBy what decided, e.g. {@code error rule 'credit-gone' of provider 'zenith' (the
 *     plugin's own provider: ahead of the built-in patterns)} or {@code built-in pattern:
 *     out-of-credit text -> credits_exhausted (terminal)}
 * @param shadowed the rules that matched too but did not decide, in the order they are consulted
 * @param terminal whether the connection leaves rotation until an operator reactivates it
 *     ({@code bin/sluice connections reactivate ID}): out of credits or deactivated
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
        boolean fallback,
        String decidedBy,
        java.util.List<String> shadowed,
        boolean terminal) {

    /** Copies the list. */
    public RuleVerdict {
        shadowed = shadowed == null ? java.util.List.of() : java.util.List.copyOf(shadowed);
    }

    /**
     * A verdict without an explanation (the fields of the first release of the kit).
     *
     * @param status see the record
     * @param restatementRule see the record
     * @param errorRule see the record
     * @param reason see the record
     * @param scope see the record
     * @param ruleScope see the record
     * @param scopeHonoured see the record
     * @param cooldownMs see the record
     * @param retryAfterMs see the record
     * @param fallback see the record
     */
    public RuleVerdict(int status, String restatementRule, String errorRule, FailureReason reason, LockScope scope,
            LockScope ruleScope, boolean scopeHonoured, Long cooldownMs, Long retryAfterMs, boolean fallback) {
        this(status, restatementRule, errorRule, reason, scope, ruleScope, scopeHonoured, cooldownMs, retryAfterMs, fallback, null,
                java.util.List.of(), false);
    }
}
