package dev.sluice.runtime.resilience;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import java.time.InstantSource;
import java.util.List;
import java.util.Locale;

/**
 * The one place that turns an upstream failure into a {@link Verdict} (SPEC §5; OmniRoute's
 * {@code checkFallbackError}). Pure apart from reading the clock for HTTP-date hints.
 *
 * <p>Fallback (try the next connection) on: transport failures, 5xx, 408, 429, and the
 * account-level 401/402/403 (another key of the same provider may work). Request-level errors
 * (400, 404, 413, 422 …) are answered at once: every connection would refuse them alike.
 */
public final class FailureClassifier {

    /** FC-2: body phrases meaning a quota or usage limit, not a rate limit. */
    static final List<String> QUOTA_PATTERNS = List.of("usage limit reached", "quota exceeded", "exceeded your current quota",
            "monthly usage limit", "insufficient_quota", "quota_exceeded", "resource_exhausted", "额度不足", "用户额度不足");
    /** FC-2: body phrases meaning too many concurrent requests. */
    static final List<String> CONCURRENCY_PATTERNS = List.of("too many concurrent requests", "concurrency limit",
            "parallel request limit", "并发数过高");
    /** Body phrases meaning the request exceeds the context window. */
    static final List<String> CONTEXT_PATTERNS = List.of("context length", "context_length_exceeded", "maximum context",
            "too many tokens", "prompt is too long");

    private final InstantSource clock;

    /**
     * Creates the classifier.
     *
     * @param clock the clock
     */
    public FailureClassifier(InstantSource clock) {
        this.clock = clock;
    }

    /**
     * Classifies a failure.
     *
     * @param provider the provider id
     * @param connectionClass the class of the connection that failed
     * @param failure the failure
     * @return the verdict
     */
    public Verdict classify(String provider, ProviderClass connectionClass, UpstreamFailure failure) {
        return switch (failure) {
            case TransportError t -> switch (t.kind()) {
                case TIMEOUT -> Verdict.of(FailureReason.TIMEOUT, 504, true, LockScope.EXACT);
                // the upstream answered, but not with a usable answer: the gateway's own 502 (FC-1)
                case PROTOCOL -> Verdict.of(FailureReason.QUALITY_FAILURE, 502, true, LockScope.EXACT);
                default -> Verdict.of(FailureReason.NETWORK_ERROR, 502, true, LockScope.EXACT);
            };
            case UpstreamError e -> classify(e);
        };
    }

    private static Verdict v(FailureReason reason, int status, boolean fallback, Long hint) {
        Verdict v = Verdict.of(reason, status, fallback, LockScope.CONNECTION);
        return hint == null ? v : v.withHint(hint, Verdict.HintSource.HEADER);
    }

    private Verdict classify(UpstreamError e) {
        int status = e.status();
        // FC-3 order: headers first, then a structured hint the executor read from the body (Google RetryInfo)
        Long hint = RetryHints.fromHeaders(e.head(), clock.millis())
                .orElse(e.retryHint() == null ? null : e.retryHint().delayMs());
        String text = (e.body() + " " + (e.errorCode() == null ? "" : e.errorCode()) + " "
                + (e.errorType() == null ? "" : e.errorType())).toLowerCase(Locale.ROOT);
        if (status == 429) {
            FailureReason reason = containsAny(text, QUOTA_PATTERNS) ? FailureReason.QUOTA_EXHAUSTED
                    : containsAny(text, CONCURRENCY_PATTERNS) ? FailureReason.CONCURRENCY_LIMITED
                    : FailureReason.RATE_LIMIT_EXCEEDED;
            return v(reason, status, true, hint);
        }
        if (status >= 500) {
            return v(FailureReason.SERVER_ERROR, status, true, hint);
        }
        return switch (status) {
            case 408 -> v(FailureReason.TIMEOUT, status, true, hint);
            // an executor that could not renew an OAuth token says so with code "expired" (CC-6)
            case 401 -> v("expired".equals(e.errorCode()) ? FailureReason.EXPIRED : FailureReason.AUTH_ERROR,
                    status, true, null);
            case 402 -> v(FailureReason.CREDITS_EXHAUSTED, status, true, null);
            case 403 -> v(FailureReason.AUTH_ERROR, status, true, null);
            case 404 -> v(FailureReason.NOT_FOUND, status, false, null);
            default -> v(containsAny(text, CONTEXT_PATTERNS) ? FailureReason.CONTEXT_OVERFLOW : FailureReason.BAD_REQUEST,
                    status, false, null);
        };
    }

    private static boolean containsAny(String text, List<String> patterns) {
        for (String p : patterns) {
            if (text.contains(p)) {
                return true;
            }
        }
        return false;
    }
}
