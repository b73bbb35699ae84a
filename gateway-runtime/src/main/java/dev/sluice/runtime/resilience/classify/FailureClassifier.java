package dev.sluice.runtime.resilience.classify;

import static dev.sluice.runtime.resilience.classify.ErrorTextMatcher.containsAny;
import static dev.sluice.runtime.resilience.classify.ErrorTextMatcher.findsAny;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.classify.RetryHints.Hint;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The one place that turns an upstream failure into a {@link Verdict} (SPEC §5, FC-1…FC-4;
 * OmniRoute's {@code checkFallbackError}). Pure apart from reading the clock (for dated hints and
 * the next UTC midnight); never throws, whatever the body holds.
 *
 * <p>Order of evaluation, first match wins:
 * <ol>
 *   <li>transport failures: {@code timeout} 504 / {@code network_error} 502 / the gateway's own
 *       {@code quality_failure} 502 (never counted by the breaker), all {@code exact};</li>
 *   <li>an error answer below 400 is an unusable answer: {@code quality_failure} 502;</li>
 *   <li>a deactivated account, on any status: {@code banned}, permanent, 1 year;</li>
 *   <li>a billing suspension or an out-of-credit text, on any status: {@code credits_exhausted};</li>
 *   <li>5xx {@code server_error}, 408 {@code timeout}: {@code exact};</li>
 *   <li>by status: 429 (FC-2), 402, 401, 403, 404/410, 400 (FC-4), 432; any other 4xx is a
 *       request-scoped {@code bad_request}.</li>
 * </ol>
 * A retry hint (FC-3, {@link RetryHints}) is attached to every verdict of an error status.
 * Phrase tables: {@link ErrorTextPatterns}.
 */
public final class FailureClassifier {

    /** A banned or deactivated account is cooled for a year (OmniRoute, notes §3.1 3a). */
    public static final long BANNED_COOLDOWN_MS = 31_536_000_000L;
    /** A subscription usage window without a hint (notes §3.1 3h). */
    public static final long SUBSCRIPTION_QUOTA_COOLDOWN_MS = 3_600_000L;
    /** A weekly cap without a hint (notes §3.1 3i). */
    public static final long WEEKLY_QUOTA_COOLDOWN_MS = 86_400_000L;
    /** A session cap without a hint: 5 h (notes §3.1 3j). */
    public static final long SESSION_QUOTA_COOLDOWN_MS = 18_000_000L;
    /** Cap of the cooldown until the next UTC midnight for a daily quota (notes §3.1 3g). */
    public static final long DAILY_QUOTA_MAX_COOLDOWN_MS = 86_400_000L;
    /** A retired model or a moved endpoint (notes §3.1 3b, 3c). */
    public static final long MODEL_RETIRED_COOLDOWN_MS = 86_400_000L;
    /** CC-4: the flat cooldown of a concurrency-limited connection without a hint. */
    public static final long CONCURRENCY_LIMIT_COOLDOWN_MS = 1_000L;
    /**
     * FC-2, BO-5: a 429 body declaring a retry window below this is a rate limit even when it
     * speaks of quota; a hint of at least this much is a quota, not a rate limit (OmniRoute's
     * {@code QUOTA_SCALE_RETRY_DELAY_SECONDS}, notes §3.5).
     */
    public static final long QUOTA_SCALE_WINDOW_MS = 3_600_000L;
    /** Only the first this many characters of a body are searched (a bound on the work per failure). */
    static final int MAX_SCANNED_CHARS = 16_384;

    private final InstantSource clock;
    private final ErrorRules rules;

    /**
     * Creates the classifier.
     *
     * @param clock the clock
     * @param rules provider error rules (SPEC §16.2); {@link ErrorRules#NONE} for none
     */
    public FailureClassifier(InstantSource clock, ErrorRules rules) {
        this.clock = Objects.requireNonNull(clock, "clock is null");
        this.rules = Objects.requireNonNull(rules, "rules is null");
    }

    /**
     * Classifies a failure.
     *
     * @param provider the provider id (only {@code claude} changes a decision: its
     *     "would exceed your account's rate limit" 429 is a subscription quota)
     * @param connectionClass the class of the connection that failed
     * @param failure the failure
     * @return the verdict
     */
    public Verdict classify(String provider, ProviderClass connectionClass, UpstreamFailure failure) {
        return switch (failure) {
            case TransportError t -> switch (t.kind()) {
                case TIMEOUT -> Verdict.of(FailureReason.TIMEOUT, 504, true, LockScope.EXACT);
                // the upstream answered, but not usably: the gateway's own 502, no evidence about
                // the provider's health (FC-1, CB-3)
                case PROTOCOL -> qualityFailure();
                default -> Verdict.of(FailureReason.NETWORK_ERROR, 502, true, LockScope.EXACT);
            };
            case UpstreamError e -> classifyError(provider, connectionClass, e);
        };
    }

    /**
     * Classifies an attempt's failure: an upstream's as {@link #classify(String, ProviderClass,
     * UpstreamFailure)} does; one of the gateway's own timers as a request-scoped timeout (BO-7),
     * which falls back to the next connection but counts for no mechanism.
     *
     * @param provider the provider id
     * @param connectionClass the class of the connection that failed
     * @param failure the failure
     * @return the verdict
     */
    public Verdict classify(String provider, ProviderClass connectionClass, AttemptFailure failure) {
        return switch (failure) {
            case AttemptFailure.Upstream u -> classify(provider, connectionClass, u.failure());
            case AttemptFailure.GatewayTimer t -> gatewayTimer(t.timer());
            // an upstream that says 200 and ends before anything useful is a network failure of the upstream's
            case AttemptFailure.EarlyEof e -> Verdict.of(FailureReason.NETWORK_ERROR, 502, true, LockScope.EXACT);
            // BO-6: the request ends where it is; nothing is the upstream's fault
            case AttemptFailure.ClientGone g -> Verdict.builder(FailureReason.BAD_REQUEST, 499, LockScope.EXACT).fallback(false)
                    .skipProviderBreaker(true).requestScoped().build();
        };
    }

    /** BO-7: the gateway's own timer is this request's business, never the upstream's. */
    static Verdict gatewayTimer(AttemptFailure.Timer timer) {
        return Verdict.builder(FailureReason.TIMEOUT, timer.status(), LockScope.EXACT).skipProviderBreaker(true).requestScoped().build();
    }

    private static Verdict qualityFailure() {
        return Verdict.builder(FailureReason.QUALITY_FAILURE, 502, LockScope.EXACT).skipProviderBreaker(true).build();
    }

    /** What one error answer says, computed once. */
    private record Facts(int status, String text, String code, String type, List<Hint> hints, long now) {

        Hint hint() {
            return hints.isEmpty() ? null : hints.get(0);
        }

        /** FC-2: the body declares a back-off window under an hour. */
        boolean shortBodyWindow() {
            for (Hint h : hints) {
                if (h.bodyRetryWindow() && h.ms() < QUOTA_SCALE_WINDOW_MS) {
                    return true;
                }
            }
            return false;
        }

        boolean has(List<String> phrases) {
            return containsAny(text, phrases);
        }

        boolean finds(List<Pattern> patterns) {
            return findsAny(text, patterns);
        }
    }

    private Verdict classifyError(String provider, ProviderClass connectionClass, UpstreamError e) {
        int status = e.status();
        if (status < 400) {
            return qualityFailure();
        }
        String code = lower(e.errorCode());
        String type = lower(e.errorType());
        String body = e.body().length() > MAX_SCANNED_CHARS ? e.body().substring(0, MAX_SCANNED_CHARS) : e.body();
        String text = (body + "\n" + code + "\n" + type + "\n" + lower(e.message())).toLowerCase(Locale.ROOT);
        long now = clock.millis();
        Facts f = new Facts(status, text, code, type, RetryHints.all(e.head(), e.retryHint(), text, now), now);
        Verdict builtIn = byText(f, provider, connectionClass);
        Verdict v = builtIn;
        if (provider != null && rules.any(provider)) {
            ErrorRules.Match match = rules.match(provider, status, e.head(), text, code, type);
            if (match != null && match.authoritative()) {
                // issue 27: a plugin's rule for its own provider decides ahead of the built-in text patterns
                v = fromOwnRule(builtIn, match);
            } else if (match != null && builtIn.reason() != FailureReason.BANNED) {
                v = withRule(builtIn, match);
            }
        }
        Hint hint = f.hint();
        return hint == null ? v : v.withHint(hint.ms(), hint.source());
    }

    /**
     * Why an upstream error got its verdict, for plugin authors (the plugin test kit's
     * {@code RuleVerdict}); never called on the request path. Classifies exactly as
     * {@link #classify(String, ProviderClass, UpstreamFailure)} does, then names what decided and
     * which matching rules were shadowed by it.
     *
     * @param provider the provider id
     * @param connectionClass the class of the connection that failed
     * @param e the error
     * @return the explanation
     */
    public ClassifierExplanation explain(String provider, ProviderClass connectionClass, UpstreamError e) {
        return ClassifierExplanation.of(classify(provider, connectionClass, e), rules, provider, e);
    }

    /**
     * Issue 27: a plugin's rule for its own provider, ahead of the built-in text patterns. Its
     * reason decides, terminal ones included ({@code credits_exhausted} stays out of rotation until
     * reactivated, {@code banned} for a year unless the rule declares a cooldown); its scope is
     * acted on only where the descriptor honours rule scopes (ER-3), else the scope the built-in
     * classifier would lock.
     */
    private static Verdict fromOwnRule(Verdict builtIn, ErrorRules.Match match) {
        var rule = match.rule();
        FailureReason reason = rule.reason();
        LockScope scope = match.honoured() ? rule.scope() : builtIn.lockScope();
        Long cooldown = rule.baseCooldownMs() != null ? rule.baseCooldownMs() : reason == builtIn.reason() ? builtIn.cooldownMs() : null;
        boolean providerLevel = Verdict.serviceLevel(reason) || scope == LockScope.PROVIDER;
        Verdict.Builder b = Verdict.builder(reason, builtIn.status(), scope).skipProviderBreaker(!providerLevel).ruleScope(rule.scope());
        switch (reason) {
            case CREDITS_EXHAUSTED -> b.creditsExhausted();
            case BANNED -> b.permanent().cooldownMs(cooldown != null ? cooldown : BANNED_COOLDOWN_MS);
            case BAD_REQUEST, CONTEXT_OVERFLOW -> b.fallback(false).requestScoped();
            default -> b.cooldownMs(cooldown);
        }
        return b.build();
    }

    /**
     * A matched provider error rule (ER-1) over the built-in verdict: the rule's reason and declared
     * cooldown, its scope acted on only where honoured (ER-3; informational {@code ruleScope}
     * elsewhere). Rules are consulted for every status, 400 included (OmniRoute's known gap, closed
     * here), but the built-in verdict keeps what a rule must not undo:
     * <ul>
     *   <li>terminal verdicts (credits, deactivation) and a concurrency limit (CC-4) stay;</li>
     *   <li>a quota or concurrency limit the built-in tables recognised is never turned into a mere
     *       rate limit (BO-5);</li>
     *   <li>a service-level failure (5xx, 408, transport), a request-scoped error or a verdict that
     *       forbids fallback is changed only by a rule that names that exact status and adds a text
     *       or header condition — a status-only or catch-all rule never makes one bad request cool
     *       an account or a provider outage look like a quota.</li>
     * </ul>
     * A rule never yields a terminal or request-scoped verdict.
     */
    private static Verdict withRule(Verdict builtIn, ErrorRules.Match match) {
        var rule = match.rule();
        if (builtIn.permanent() || builtIn.creditsExhausted() || builtIn.reason() == FailureReason.CONCURRENCY_LIMITED) {
            return builtIn;
        }
        boolean guarded = builtIn.requestScoped() || !builtIn.fallback() || Verdict.serviceLevel(builtIn.reason());
        boolean specific = rule.status() != null && rule.status() == builtIn.status()
                && (!rule.textMarkers().isEmpty() || !rule.headers().isEmpty());
        if (guarded && !specific) {
            return builtIn;
        }
        boolean keepQuota = rule.reason() == FailureReason.RATE_LIMIT_EXCEEDED && builtIn.reason() == FailureReason.QUOTA_EXHAUSTED;
        FailureReason reason = keepQuota ? builtIn.reason() : rule.reason();
        Long cooldown = rule.baseCooldownMs() != null ? rule.baseCooldownMs() : reason == builtIn.reason() ? builtIn.cooldownMs() : null;
        LockScope scope = match.honoured() ? rule.scope() : builtIn.lockScope();
        boolean providerLevel = Verdict.serviceLevel(reason) || scope == LockScope.PROVIDER;
        return Verdict.builder(reason, builtIn.status(), scope).cooldownMs(cooldown)
                .skipProviderBreaker(builtIn.skipProviderBreaker() || !providerLevel).ruleScope(rule.scope()).build();
    }

    private Verdict byText(Facts f, String provider, ProviderClass connectionClass) {
        int status = f.status();
        if (f.has(ErrorTextPatterns.DEACTIVATED_PHRASES)) {
            return Verdict.builder(FailureReason.BANNED, status, LockScope.CONNECTION).cooldownMs(BANNED_COOLDOWN_MS).permanent().build();
        }
        if (f.finds(ErrorTextPatterns.BILLING_SUSPENSION_PATTERNS) || f.has(ErrorTextPatterns.CREDIT_PHRASES)
                || f.finds(ErrorTextPatterns.CREDIT_PATTERNS)) {
            return credits(status);
        }
        if (status >= 500) {
            return Verdict.of(FailureReason.SERVER_ERROR, status, true, LockScope.EXACT);
        }
        return switch (status) {
            case 408 -> Verdict.of(FailureReason.TIMEOUT, status, true, LockScope.EXACT);
            case 429 -> tooManyRequests(f, provider);
            case 402 -> credits(status);
            // an executor that could not renew an OAuth token says so with code "expired" (CC-6)
            case 401 -> Verdict.of("expired".equals(f.code()) || connectionClass == ProviderClass.OAUTH
                    ? FailureReason.EXPIRED : FailureReason.AUTH_ERROR, status, true, LockScope.CONNECTION);
            case 403 -> forbidden(f);
            case 404, 410 -> notFound(f, connectionClass);
            case 400 -> badRequest(f);
            // a plan limit (OmniRoute notes §3.1 step 6)
            case 432 -> quota(f, status, SUBSCRIPTION_QUOTA_COOLDOWN_MS);
            default -> requestScoped(FailureReason.BAD_REQUEST, status);
        };
    }

    private static Verdict credits(int status) {
        return Verdict.builder(FailureReason.CREDITS_EXHAUSTED, status, LockScope.CONNECTION).creditsExhausted().build();
    }

    private static Verdict requestScoped(FailureReason reason, int status) {
        return Verdict.builder(reason, status, LockScope.EXACT).fallback(false).requestScoped().build();
    }

    // ------------------------------------------------------------------ 429 (FC-2)

    private Verdict tooManyRequests(Facts f, String provider) {
        int status = f.status();
        if (f.finds(ErrorTextPatterns.TERMINAL_QUOTA_PATTERNS)) {
            return quotaVerdict(f, provider, status);
        }
        if (!f.shortBodyWindow()) {
            Verdict quota = quotaVerdict(f, provider, status);
            if (quota != null) {
                return quota;
            }
            Hint hint = f.hint();
            if (hint != null && hint.ms() >= QUOTA_SCALE_WINDOW_MS) {
                // BO-5: an hour-scale announced wait is a quota, whatever the words
                return Verdict.of(FailureReason.QUOTA_EXHAUSTED, status, true, LockScope.MODEL);
            }
        }
        if (f.has(ErrorTextPatterns.CONCURRENCY_PHRASES)) {
            Hint hint = f.hint();
            return Verdict.builder(FailureReason.CONCURRENCY_LIMITED, status, LockScope.CONNECTION)
                    .cooldownMs(hint == null ? CONCURRENCY_LIMIT_COOLDOWN_MS : hint.ms()).skipProviderBreaker(true).build();
        }
        return Verdict.of(FailureReason.RATE_LIMIT_EXCEEDED, status, true, LockScope.MODEL);
    }

    /**
     * A quota verdict when the text names a quota, or null; with the cooldown its kind declares:
     * weekly 24 h, session 5 h, daily until the next UTC midnight, subscription 1 h, any other
     * none (the mechanism's own backoff decides). Checked in that order: "weekly usage limit
     * reached" is weekly, not a 1 h subscription window.
     */
    private Verdict quotaVerdict(Facts f, String provider, int status) {
        Long declared;
        if (f.finds(ErrorTextPatterns.WEEKLY_QUOTA_PATTERNS)) {
            declared = WEEKLY_QUOTA_COOLDOWN_MS;
        } else if (f.finds(ErrorTextPatterns.SESSION_QUOTA_PATTERNS)) {
            declared = SESSION_QUOTA_COOLDOWN_MS;
        } else if (f.finds(ErrorTextPatterns.DAILY_QUOTA_PATTERNS)) {
            declared = untilNextUtcMidnight(f.now());
        } else if (f.has(ErrorTextPatterns.SUBSCRIPTION_QUOTA_PHRASES)
                || "claude".equalsIgnoreCase(provider) && f.text().contains(ErrorTextPatterns.CLAUDE_ACCOUNT_LIMIT_PHRASE)) {
            declared = SUBSCRIPTION_QUOTA_COOLDOWN_MS;
        } else if (f.finds(ErrorTextPatterns.QUOTA_PATTERNS) || f.finds(ErrorTextPatterns.TERMINAL_QUOTA_PATTERNS)) {
            declared = null;
        } else {
            return null;
        }
        return quota(f, status, declared);
    }

    /**
     * A quota verdict. A hint replaces the declared cooldown, except a body back-off window under
     * an hour: next to a terminal quota text ("daily free allocation", "TPD rate limit") that is
     * per-minute pacing, not the reset.
     */
    private static Verdict quota(Facts f, int status, Long declared) {
        Hint hint = f.hint();
        Long cooldown = declared == null || hint == null || (hint.bodyRetryWindow() && hint.ms() < QUOTA_SCALE_WINDOW_MS)
                ? declared : Long.valueOf(hint.ms());
        return Verdict.builder(FailureReason.QUOTA_EXHAUSTED, status, LockScope.MODEL).cooldownMs(cooldown).build();
    }

    private static long untilNextUtcMidnight(long nowMillis) {
        long midnight = LocalDate.ofEpochDay(Math.floorDiv(nowMillis, 86_400_000L) + 1)
                .atStartOfDay().toInstant(ZoneOffset.UTC).toEpochMilli();
        return Math.min(midnight - nowMillis, DAILY_QUOTA_MAX_COOLDOWN_MS);
    }

    // ------------------------------------------------------------------ 403

    private Verdict forbidden(Facts f) {
        int status = f.status();
        if (f.text().contains(ErrorTextPatterns.REQUEST_NOT_ALLOWED_PHRASE)) {
            return Verdict.of(FailureReason.REQUEST_REJECTED, status, true, LockScope.CONNECTION);
        }
        if (f.text().contains(ErrorTextPatterns.ROUTE_NOT_AUTHORIZED_PHRASE)) {
            // the key is fine, only this route is denied: nothing to cool, nothing to try next
            return Verdict.builder(FailureReason.FORBIDDEN, status, LockScope.EXACT).fallback(false).cooldownMs(0L).build();
        }
        if (f.finds(ErrorTextPatterns.MODEL_ACCESS_PATTERNS)) {
            return Verdict.of(FailureReason.MODEL_ACCESS_DENIED, status, true, LockScope.MODEL);
        }
        Verdict quota = quotaVerdict(f, null, status);
        if (quota != null) {
            return quota;
        }
        return Verdict.of(FailureReason.AUTH_ERROR, status, true, LockScope.CONNECTION);
    }

    // ------------------------------------------------------------------ 404 / 410

    private static Verdict notFound(Facts f, ProviderClass connectionClass) {
        if (f.finds(ErrorTextPatterns.MODEL_RETIRED_PATTERNS) || f.finds(ErrorTextPatterns.ENDPOINT_MOVED_PATTERNS)) {
            return Verdict.builder(FailureReason.NOT_FOUND, f.status(), LockScope.MODEL).fallback(false)
                    .cooldownMs(MODEL_RETIRED_COOLDOWN_MS).build();
        }
        return Verdict.of(connectionClass == ProviderClass.LOCAL ? FailureReason.NOT_FOUND_LOCAL : FailureReason.NOT_FOUND,
                f.status(), false, LockScope.MODEL);
    }

    // ------------------------------------------------------------------ 400 (FC-4)

    private static Verdict badRequest(Facts f) {
        int status = f.status();
        if (ErrorTextPatterns.MODEL_NOT_FOUND_CODES.contains(f.code()) || ErrorTextPatterns.MODEL_NOT_FOUND_CODES.contains(f.type())) {
            return Verdict.of(FailureReason.NOT_FOUND, status, true, LockScope.MODEL);
        }
        if (f.finds(ErrorTextPatterns.INVALID_KEY_ON_400_PATTERNS)) {
            return Verdict.of(FailureReason.AUTH_ERROR, status, true, LockScope.CONNECTION);
        }
        if (ToolLimitText.matches(f.text())) {
            // OF-2: this upstream takes fewer tools than the request has; another target may take them all
            return Verdict.builder(FailureReason.BAD_REQUEST, status, LockScope.EXACT).requestScoped().build();
        }
        if (f.finds(ErrorTextPatterns.MALFORMED_REQUEST_PATTERNS)) {
            return requestScoped(FailureReason.BAD_REQUEST, status);
        }
        if (f.finds(ErrorTextPatterns.CONTEXT_OVERFLOW_PATTERNS)) {
            return requestScoped(FailureReason.CONTEXT_OVERFLOW, status);
        }
        boolean modelAccess = "permission_error".equals(f.type()) && f.text().contains("model")
                || !f.finds(ErrorTextPatterns.BAD_CREDENTIAL_PATTERNS) && f.finds(ErrorTextPatterns.MODEL_ACCESS_PATTERNS);
        if (modelAccess) {
            return Verdict.of(FailureReason.MODEL_ACCESS_DENIED, status, true, LockScope.MODEL);
        }
        if (f.finds(ErrorTextPatterns.RATE_LIMIT_ON_400_PATTERNS)) {
            return Verdict.of(FailureReason.RATE_LIMIT_EXCEEDED, status, true, LockScope.MODEL);
        }
        return requestScoped(FailureReason.BAD_REQUEST, status);
    }

    private static String lower(String s) {
        return s == null ? "" : s.strip().toLowerCase(Locale.ROOT);
    }
}
