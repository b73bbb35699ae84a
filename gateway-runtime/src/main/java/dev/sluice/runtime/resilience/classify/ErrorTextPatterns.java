package dev.sluice.runtime.resilience.classify;

import java.util.List;
import java.util.regex.Pattern;

/**
 * The phrase tables of the failure classifier (SPEC §5, FC-2, FC-4). Every table says where it
 * comes from: <b>OmniRoute</b> (copied from {@code accountFallback.ts}, {@code classify429.ts},
 * {@code quotaTextCooldowns.ts}; see {@code reference/omniroute-notes.md} §3.1, §3.5, §3.17) or
 * <b>Sluice</b> (our additions and deliberate differences, each with its reason).
 *
 * <p>All tables are matched against the <em>lower-cased</em> concatenation of the error body, the
 * structured {@code code}, {@code type} and {@code message}; phrases are therefore written in lower
 * case, and regular expressions bound every gap ({@code .{0,60}}) so that a large body can never
 * make a match slow or recurse deeply. {@link ErrorTextMatcher} matches them.
 */
final class ErrorTextPatterns {

    private ErrorTextPatterns() {
    }

    private static Pattern re(String regex) {
        return ErrorTextMatcher.compile(regex);
    }

    /**
     * The account is deactivated or banned: terminal {@code banned}, on any status (CC-6).
     * OmniRoute {@code ACCOUNT_DEACTIVATED_SIGNALS} (notes §3.1 3a), unchanged.
     */
    static final List<String> DEACTIVATED_PHRASES = List.of(
            "account_deactivated",
            "account has been deactivated",
            "account has been disabled",
            "your account has been suspended",
            "this account is deactivated",
            "verify your account to continue",
            "this service has been disabled in this account");

    /**
     * A billing suspension (unpaid invoice, spending limit) that needs an operator: terminal
     * {@code credits_exhausted}. OmniRoute {@code ACCOUNT_SUSPENDED_BILLING_PATTERNS} (notes §3.1 3d).
     */
    static final List<Pattern> BILLING_SUSPENSION_PATTERNS = List.of(
            re("\\bsuspended\\b.{0,120}?\\b(?:spending limit|billing|invoice|payment)\\b"),
            re("\\b(?:spending limit|billing|invoice|payment)\\b.{0,120}?\\bsuspended\\b"));

    /**
     * The account is out of credits or balance: terminal {@code credits_exhausted} on any status.
     * OmniRoute {@code CREDITS_EXHAUSTED_SIGNALS} (notes §3.1 3f) <b>without</b>
     * {@code "exceeded your current quota"}: Gemini opens its per-minute and per-day 429s with that
     * very sentence, so Sluice leaves it to {@link #QUOTA_PATTERNS} (OpenAI's real out-of-credit 429
     * still matches through its code {@code insufficient_quota}). Sluice adds the Chinese
     * {@code 余额不足} ("insufficient balance", GLM code 1113) and {@code 欠费} ("in arrears").
     */
    static final List<String> CREDIT_PHRASES = List.of(
            "insufficient_quota",
            "billing_hard_limit_reached",
            "exceeded your current usage quota",
            "credit_balance_too_low",
            "your credit balance is too low",
            "credits exhausted",
            "out of credits",
            "payment required",
            "free tier of the model has been exhausted",
            "tier has been exhausted",
            "insufficient balance",
            "insufficient_balance",
            "insufficient account balance",
            "insufficient credit balance",
            "insufficient credits",
            "insufficient credit",
            // Sluice
            "余额不足",
            "欠费");

    /**
     * The credit/billing half of OmniRoute's {@code TERMINAL_QUOTA_PATTERNS} (notes §3.5 step 2):
     * these never clear on a timer, so no retry hint can downgrade them. Terminal
     * {@code credits_exhausted}.
     */
    static final List<Pattern> CREDIT_PATTERNS = List.of(
            re("insufficient_g1_credits_balance"),
            re("credit.{0,40}exhaust"),
            re("billing.{0,40}\\bcap\\b"),
            re("insufficient.{0,40}quota"));

    /**
     * The quota half of OmniRoute's {@code TERMINAL_QUOTA_PATTERNS} (notes §3.5 step 2): a 429 with
     * one of these is {@code quota_exhausted} whatever retry window the body declares.
     */
    static final List<Pattern> TERMINAL_QUOTA_PATTERNS = List.of(
            re("individual quota reached"),
            re("enable overages"),
            re("daily free allocation"),
            re("\\btpd rate limit\\b"));

    /**
     * A long-window quota or usage cap: {@code quota_exhausted} unless the body declares a retry
     * window under an hour (FC-2, BO-5). OmniRoute {@code QUOTA_PATTERNS} (notes §3.5 step 4,
     * including the Chinese markers of #13194; {@code 请求过于频繁} deliberately absent) plus the
     * quota phrases of OmniRoute's {@code classifyErrorText} and error-rule table ("quota
     * depleted", "quota will reset", "hour quota", "quota has been exceeded", "quota exhausted",
     * "exhausted your capacity"; "hour quota" and "quota has been exceeded" are also the quota
     * wording OmniRoute recognises on a 403, notes §3.1 3n). Sluice adds {@code 额度不足} ("quota insufficient") and the
     * {@code free-models-per-day} marker of OpenRouter; Sluice leaves out OmniRoute's bare
     * "free tier" (it names Gemini's per-minute free-tier metrics too) and "resource_exhausted"
     * (Vertex's shared-capacity throttle says it).
     */
    static final List<Pattern> QUOTA_PATTERNS = List.of(
            re("\\bdaily\\b.{0,40}\\blimit"),
            re("\\bdaily\\b.{0,40}\\bquota"),
            re("\\bper.?day\\b.{0,40}\\blimit"),
            re("\\bmonthly\\b.{0,40}\\b(?:limit|quota)"),
            re("\\bper.?month\\b.{0,40}\\blimit"),
            re("quota.{0,40}exceed"),
            re("exceed.{0,40}quota"),
            re("out of credits"),
            re("\\bhard.?limit"),
            re("\\bplan\\b.{0,40}\\blimit"),
            re("resource has been exhausted.{0,80}reset after"),
            re("have exhausted their quota"),
            re("\"error\"\\s{0,4}:\\s{0,4}\"usage limit reached[.\\s]{0,4}\""),
            re("insufficient balance"),
            re("quota (?:depleted|will reset|exhausted)"),
            re("\\bhour quota\\b"),
            re("exhausted your capacity"),
            re("限额将在.{0,40}重置"),
            re("使用上限"),
            re("调用上限"),
            re("额度已用尽"),
            re("额度已用完"),
            // Sluice
            re("额度不足"),
            re("free-models-per-day"));

    /**
     * A subscription usage window (Claude Pro 5 h, Codex plans): {@code quota_exhausted} with the
     * hint, or else {@link FailureClassifier#SUBSCRIPTION_QUOTA_COOLDOWN_MS}. OmniRoute
     * {@code isSubscriptionQuotaText} (notes §3.1 3h). Sluice adds {@code usage_limit_reached}
     * (Codex's error type) and "usage limit exceeded" (MiniMax's coding plan, error 2056), and
     * counts OmniRoute's terminal "individual quota reached" / "enable overages" (Cloud Code) here
     * for their cooldown.
     */
    static final List<String> SUBSCRIPTION_QUOTA_PHRASES = List.of(
            "usage limit reached",
            "usage limit has been",
            "claude pro usage limit",
            "you've reached your usage limit",
            "you have reached your usage limit",
            // Sluice
            "usage_limit_reached",
            "usage limit exceeded",
            "individual quota reached",
            "enable overages");

    /**
     * The Claude subscription wording of an exhausted window, a subscription quota only on the
     * provider {@code claude} (other upstreams use it for a short throttle). OmniRoute
     * {@code isSubscriptionQuotaText} (notes §3.1 3h).
     */
    static final String CLAUDE_ACCOUNT_LIMIT_PHRASE = "this request would exceed your account's rate limit";

    /**
     * A weekly cap: {@code quota_exhausted}, hint or else
     * {@link FailureClassifier#WEEKLY_QUOTA_COOLDOWN_MS}. OmniRoute {@code isWeeklyUsageLimitText}
     * (notes §3.1 3i, plus its newer "week quota" forms); Sluice adds GLM's {@code 每周} ("weekly")
     * cap wording. Checked before the subscription phrases (Sluice: OmniRoute checks "usage limit
     * reached" first, so "weekly usage limit reached" got the 1 h cooldown).
     */
    static final List<Pattern> WEEKLY_QUOTA_PATTERNS = List.of(
            re("weekly usage limit"),
            re("weekly limit reached"),
            re("reached your weekly"),
            re("1-week quota"),
            re("\\bweek quota"),
            re("weekly/monthly limit"),
            re("\\bweekly\\b.{0,40}\\bquota\\b.{0,40}exhaust"),
            // Sluice
            re("每周.{0,10}(?:使用|调用)?上限"));

    /**
     * A session cap: {@code quota_exhausted}, hint or else
     * {@link FailureClassifier#SESSION_QUOTA_COOLDOWN_MS}. OmniRoute (notes §3.1 3j).
     */
    static final List<Pattern> SESSION_QUOTA_PATTERNS = List.of(
            re("session usage limit"),
            re("session limit reached"),
            re("reached your session.{0,60}usage limit"));

    /**
     * A daily quota: {@code quota_exhausted} until the next UTC midnight unless an hour-scale hint
     * says otherwise. OmniRoute's daily texts (notes §3.1 3g: "today's quota", "daily quota", "try
     * again tomorrow", "tpd rate limit") and {@code classify429}'s daily ones ("daily … limit",
     * "per-day … limit", "daily free allocation"). Sluice adds the typographic apostrophe, Gemini's
     * camel-case {@code …PerDay…} quota ids, OpenRouter's {@code free-models-per-day} and the
     * Chinese {@code 每日}/{@code 今日} ("daily"/"today") cap wording.
     */
    static final List<Pattern> DAILY_QUOTA_PATTERNS = List.of(
            re("today['’]s quota"),
            re("\\bdaily\\b.{0,40}\\b(?:quota|limit)"),
            re("\\bper.?day\\b.{0,40}\\blimit"),
            re("try again tomorrow"),
            re("\\btpd rate limit\\b"),
            re("daily free allocation"),
            // Sluice
            re("[a-z]perday"),
            re("free-models-per-day"),
            re("(?:每日|今日).{0,10}(?:额度|上限|限额)"));

    /**
     * Too many concurrent requests on the account: {@code concurrency_limited} (FC-2, CC-4) when no
     * quota text is present. SPEC FC-2's list (OmniRoute has no such class); Sluice adds
     * "concurrent request limit", "maximum concurrent requests" and {@code 并发请求}.
     */
    static final List<String> CONCURRENCY_PHRASES = List.of(
            "too many concurrent requests",
            "concurrency limit",
            "parallel request limit",
            "并发数过高",
            // Sluice
            "concurrent request limit",
            "maximum concurrent requests",
            "并发请求");

    /** Anthropic OAuth's refusal (notes §3.17): {@code request_rejected}. OmniRoute. */
    static final String REQUEST_NOT_ALLOWED_PHRASE = "request not allowed";

    /** A 403 for one route of a working key (notes §3.1 3l): {@code forbidden}, no fallback. OmniRoute. */
    static final String ROUTE_NOT_AUTHORIZED_PHRASE = "not authorized for this route";

    /**
     * The requested model is retired for good (404/410): {@code not_found} for
     * {@link FailureClassifier#MODEL_RETIRED_COOLDOWN_MS}. OmniRoute
     * {@code MODEL_PERMANENTLY_UNAVAILABLE_PATTERNS} (notes §3.1 3b).
     */
    static final List<Pattern> MODEL_RETIRED_PATTERNS = List.of(
            re("\\bno longer available\\b"),
            re("\\bno longer supported\\b"),
            re("\\bhas reached (?:its |the )?end.?of.?life\\b"),
            re("\\bmodel\\b.{0,40}?\\b(?:deprecated|retired|discontinued|decommissioned)\\b"),
            re("\\b(?:deprecated|retired|discontinued|decommissioned)\\b.{0,40}?\\bmodel\\b"));

    /**
     * The provider moved its API (404/410): {@code not_found} for
     * {@link FailureClassifier#MODEL_RETIRED_COOLDOWN_MS}. OmniRoute
     * {@code ENDPOINT_PERMANENTLY_MOVED_PATTERNS} (notes §3.1 3c).
     */
    static final List<Pattern> ENDPOINT_MOVED_PATTERNS = List.of(
            re("\\bendpoint has moved\\b"),
            re("\\bno longer works\\b"),
            re("\\bupdate your base.?url\\b"));

    /**
     * Structured codes/types of a 400 that name a missing model (notes §3.1 step 7):
     * {@code not_found}, fallback. OmniRoute {@code MODEL_ACCESS_DENIED_CODES}/{@code _TYPES}.
     */
    static final List<String> MODEL_NOT_FOUND_CODES = List.of("model_not_found", "deployment_not_found", "not_found_error");

    /**
     * The account may not use the model (400 unless a bad-credential text is present, and 403):
     * {@code model_access_denied}, fallback. OmniRoute {@code MODEL_ACCESS_DENIED_PATTERNS} (notes
     * §3.1 step 7) with every {@code .*} bounded; Sluice adds "you do not have access to (the) model"
     * and "does not have access to model".
     */
    static final List<Pattern> MODEL_ACCESS_PATTERNS = List.of(
            re("\\binvalid model\\b"),
            re("\\bmodel\\b.{0,60}\\bnot\\b.{0,30}\\b(?:available|found|supported|accessible)\\b"),
            re("\\bmodel\\b.{0,60}(?:does not exist|doesn't exist)"),
            re("\\bmodel\\b.{0,80}?\\b(?:does\\s+not\\s+support|doesn't\\s+support|unsupported)\\b"),
            re("\\b(?:does\\s+not\\s+support|doesn't\\s+support|unsupported)\\b.{0,80}?\\bmodel\\b"),
            re("\\bunsupported\\s+model\\b"),
            re("\\baccess\\b.{0,40}\\bdenied\\b.{0,40}\\bmodel\\b"),
            re("\\bmodel\\b.{0,40}\\baccess\\b.{0,40}\\bdenied\\b"),
            re("\\bplease select a different model\\b"),
            re("\\b(?:access|permission)\\b.{0,60}?\\bmodel\\b"),
            re("\\bmodel\\b.{0,60}?\\b(?:access|permission)\\b"),
            // Sluice
            re("(?:do|does) not have access to (?:the )?model"));

    /**
     * A bad credential: suppresses {@link #MODEL_ACCESS_PATTERNS} on a 400 ("invalid api key for
     * model X" is the key's fault). OmniRoute {@code AUTH_CREDENTIAL_ERROR_PATTERNS}.
     */
    static final List<Pattern> BAD_CREDENTIAL_PATTERNS = List.of(
            re("\\b(?:invalid|incorrect|expired|missing|revoked)\\s+api[\\s_-]?key\\b"),
            re("\\bapi[\\s_-]?key\\s+(?:is\\s+)?(?:invalid|incorrect|expired|missing|revoked|not\\s+valid)\\b"),
            re("\\bauthentication\\s+(?:failed|error|required)\\b"),
            re("\\b(?:invalid|expired|missing|revoked)\\s+(?:token|credentials?|bearer)\\b"),
            re("\\bunauthorized\\b"),
            re("\\bnot\\s+authenticated\\b"));

    /**
     * Sluice: a 400 that unambiguously rejects the key itself (Gemini answers a bad key with
     * {@code 400 INVALID_ARGUMENT "API key not valid"}, reason {@code API_KEY_INVALID}) is an
     * {@code auth_error} of the connection, not a malformed request: another key may work, and this
     * one must cool. OmniRoute answers it as a non-fallback 400.
     */
    static final List<Pattern> INVALID_KEY_ON_400_PATTERNS = List.of(
            re("api_key_invalid"),
            re("\\bapi key not valid\\b"),
            re("\\b(?:invalid|incorrect)\\s+api[\\s_-]?key\\b"),
            re("\\binvalid x-api-key\\b"));

    /**
     * The request exceeds the model's context window (400): {@code context_overflow},
     * request-scoped (BO-7). OmniRoute {@code CONTEXT_OVERFLOW_PATTERNS} (notes §3.1 step 7) with
     * bounded gaps; Sluice adds OpenAI's code {@code context_length_exceeded}, "exceeds the
     * maximum number of tokens" (Gemini) and GLM's {@code 超长} ("too long").
     */
    static final List<Pattern> CONTEXT_OVERFLOW_PATTERNS = List.of(
            re("\\binput is too long\\b"),
            re("\\binput too long\\b"),
            re("\\bcontext\\b.{0,60}(?:too long|exceeded|overflow|limit)"),
            re("\\btoo many tokens\\b"),
            re("\\bprompt is too long\\b"),
            re("\\bcontext window"),
            re("\\bmaximum context"),
            re("\\bmax\\w{0,10}\\b.{0,40}\\btokens?\\b"),
            re("\\btoken limit"),
            re("\\brequest too large\\b"),
            // Sluice
            re("context_length_exceeded"),
            re("超长"));

    /**
     * A malformed request (400): {@code bad_request}, request-scoped. OmniRoute
     * {@code MALFORMED_REQUEST_PATTERNS} and {@code PARAM_VALIDATION_PATTERNS} (notes §3.1 step 7),
     * gaps bounded. Checked before {@link #CONTEXT_OVERFLOW_PATTERNS} (Sluice) so that
     * "max_tokens must be ≤ 8192" is a bad parameter, not an overflow.
     */
    static final List<Pattern> MALFORMED_REQUEST_PATTERNS = List.of(
            re("\\bimproperly formed request\\b"),
            re("\\binvalid\\b.{0,40}\\bmessage\\b.{0,40}\\bformat"),
            re("\\bmessages must alternate\\b"),
            re("\\bempty (?:message|content)\\b"),
            re("function'?s? name (?:can't|can not|is|has) (?:blank|empty|missing)"),
            re("function.{0,40}name.{0,40}(?:blank|empty|missing)"),
            re("tool_call.{0,40}name.{0,40}(?:blank|empty|missing)"),
            re("max_tokens.{0,80}(?:illegal|must be|range|maximum allowed)"),
            re("parameter is illegal"),
            re("is illegal.{0,40}range"));

    /**
     * Rate-limit text on a 400 (providers that throttle with a 400): {@code rate_limit_exceeded},
     * fallback. OmniRoute {@code RATE_LIMIT_TEXT_PATTERNS} (notes §3.1 step 7) <b>without</b>
     * "non-compliant" (Sluice: that word marks content-policy refusals, which every connection
     * would refuse alike).
     */
    static final List<Pattern> RATE_LIMIT_ON_400_PATTERNS = List.of(
            re("high.?frequency"),
            re("too many requests"),
            re("rate.?limit"),
            re("频繁"),
            re("频率"));
}
