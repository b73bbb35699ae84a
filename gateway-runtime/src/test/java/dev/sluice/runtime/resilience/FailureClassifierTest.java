package dev.sluice.runtime.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** One pure function from an upstream failure to a verdict (SPEC §5 FC-1, FC-2, FC-3; BO-5, BO-7). */
class FailureClassifierTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private final FailureClassifier classifier = new FailureClassifier(InstantSource.fixed(NOW));

    private static UpstreamError error(int status, String body) {
        return new UpstreamError(new ResponseHead(status, Map.of()), body, null, null, null);
    }

    private static UpstreamError error(int status, Map<String, List<String>> headers, String body) {
        return new UpstreamError(new ResponseHead(status, headers), body, null, null, null);
    }

    private Verdict classify(int status, String body) {
        return classifier.classify(error(status, body));
    }

    // ------------------------------------------------------------------ transport failures

    @Test
    void transportTimeoutIsATimeoutShownAs504AndFallsBack_FC1() {
        assertThat(classifier.classify(new TransportError(TransportErrorKind.TIMEOUT, "read timed out")))
                .isEqualTo(new Verdict(FailureReason.TIMEOUT, 504, true, null));
    }

    @ParameterizedTest
    @EnumSource(value = TransportErrorKind.class, names = {"CONNECT_FAILED", "CONNECTION_RESET", "DNS", "OTHER"})
    void otherTransportFailuresAreNetworkErrorsShownAs502AndFallBack_FC1(TransportErrorKind kind) {
        assertThat(classifier.classify(new TransportError(kind, null)))
                .isEqualTo(new Verdict(FailureReason.NETWORK_ERROR, 502, true, null));
    }

    @Test
    void unusableSuccessAnswerIsTheGatewaysOwnQualityFailure502_FC1() {
        assertThat(classifier.classify(new TransportError(TransportErrorKind.PROTOCOL, "not a chat completion")))
                .isEqualTo(new Verdict(FailureReason.QUALITY_FAILURE, 502, true, null));
    }

    // ------------------------------------------------------------------ 5xx, 408

    @ParameterizedTest
    @ValueSource(ints = {500, 502, 503, 504, 529, 599})
    void serverErrorsAreServerErrorKeepTheirStatusAndFallBack_FC1_NF4(int status) {
        assertThat(classify(status, "upstream trouble")).isEqualTo(new Verdict(FailureReason.SERVER_ERROR, status, true, null));
    }

    @Test
    void status408IsATimeoutAndFallsBack_FC1() {
        assertThat(classify(408, "")).isEqualTo(new Verdict(FailureReason.TIMEOUT, 408, true, null));
    }

    // ------------------------------------------------------------------ 429 (FC-2)

    @Test
    void plain429IsRateLimitExceededAndFallsBack_FC2() {
        assertThat(classify(429, "{\"error\":{\"message\":\"Rate limit reached for requests\"}}"))
                .isEqualTo(new Verdict(FailureReason.RATE_LIMIT_EXCEEDED, 429, true, null));
        assertThat(classify(429, "")).isEqualTo(new Verdict(FailureReason.RATE_LIMIT_EXCEEDED, 429, true, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Usage limit reached for this billing period", "Quota exceeded for metric", "You exceeded your current quota",
            "Your MONTHLY USAGE LIMIT has been hit", "{\"error\":{\"code\":\"insufficient_quota\"}}", "quota_exceeded",
            "RESOURCE_EXHAUSTED", "用户额度不足", "额度不足，请充值"})
    void quotaText429IsQuotaExhaustedAndFallsBack_FC2_BO5(String body) {
        assertThat(classify(429, body)).isEqualTo(new Verdict(FailureReason.QUOTA_EXHAUSTED, 429, true, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Too many concurrent requests for this model", "Concurrency limit exceeded",
            "parallel request limit reached", "并发数过高，请稍后再试"})
    void concurrencyText429IsConcurrencyLimitedAndFallsBack_FC2(String body) {
        assertThat(classify(429, body)).isEqualTo(new Verdict(FailureReason.CONCURRENCY_LIMITED, 429, true, null));
    }

    @Test
    void quotaTextWinsOverConcurrencyText_FC2() {
        assertThat(classify(429, "too many concurrent requests; also your quota exceeded").reason())
                .isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(classify(429, "并发数过高 额度不足").reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
    }

    @Test
    void structuredErrorCodeAndTypeAreSearchedToo_FC2() {
        UpstreamError byCode = new UpstreamError(new ResponseHead(429, Map.of()), "{}", "insufficient_quota", null, null);
        UpstreamError byType = new UpstreamError(new ResponseHead(429, Map.of()), "", null, "concurrency limit", null);

        assertThat(classifier.classify(byCode).reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        assertThat(classifier.classify(byType).reason()).isEqualTo(FailureReason.CONCURRENCY_LIMITED);
    }

    @Test
    void quotaTextOnANon429DoesNotMakeItAQuotaFailure_FC2() {
        assertThat(classify(400, "quota exceeded").reason()).isEqualTo(FailureReason.BAD_REQUEST);
        assertThat(classify(503, "quota exceeded").reason()).isEqualTo(FailureReason.SERVER_ERROR);
    }

    // ------------------------------------------------------------------ 401 / 402 / 403

    @Test
    void accountLevelErrorsFallBack_FC1() {
        assertThat(classify(401, "invalid api key")).isEqualTo(new Verdict(FailureReason.AUTH_ERROR, 401, true, null));
        assertThat(classify(402, "payment required")).isEqualTo(new Verdict(FailureReason.CREDITS_EXHAUSTED, 402, true, null));
        assertThat(classify(403, "forbidden")).isEqualTo(new Verdict(FailureReason.AUTH_ERROR, 403, true, null));
    }

    @Test
    void accountLevelErrorsCarryNoRetryHint_FC3() {
        Map<String, List<String>> h = Map.of("Retry-After", List.of("30"));
        assertThat(classifier.classify(error(401, h, "")).retryAfterMs()).isNull();
        assertThat(classifier.classify(error(403, h, "")).retryAfterMs()).isNull();
    }

    // ------------------------------------------------------------------ request-level errors (BO-7)

    @Test
    void badRequestIsNotFallback_FC4_BO7() {
        assertThat(classify(400, "{\"error\":{\"message\":\"Invalid parameter: temperature\"}}"))
                .isEqualTo(new Verdict(FailureReason.BAD_REQUEST, 400, false, null));
        assertThat(classify(422, "unprocessable")).isEqualTo(new Verdict(FailureReason.BAD_REQUEST, 422, false, null));
        assertThat(classify(413, "too large")).isEqualTo(new Verdict(FailureReason.BAD_REQUEST, 413, false, null));
    }

    @Test
    void notFoundIsNotFallback_FC1() {
        assertThat(classify(404, "The model `gpt-9` does not exist")).isEqualTo(new Verdict(FailureReason.NOT_FOUND, 404, false, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"This model's maximum context length is 128000 tokens", "context_length_exceeded",
            "prompt is too long: 210000 tokens > 200000 maximum", "Input has too many tokens", "exceeds the CONTEXT LENGTH"})
    void contextOverflowTextIsContextOverflowAndNotFallback_FC1_BO7(String body) {
        assertThat(classify(400, body)).isEqualTo(new Verdict(FailureReason.CONTEXT_OVERFLOW, 400, false, null));
    }

    // ------------------------------------------------------------------ retry hints reach the verdict (FC-3, BO-2)

    @Test
    void retryAfterSecondsReachesThe429Verdict_FC3_BO2() {
        assertThat(classifier.classify(error(429, Map.of("Retry-After", List.of("17")), "")))
                .isEqualTo(new Verdict(FailureReason.RATE_LIMIT_EXCEEDED, 429, true, 17_000L));
    }

    @Test
    void retryAfterHttpDateIsMeasuredFromTheClock_FC3() {
        assertThat(classifier.classify(error(503, Map.of("retry-after", List.of("Thu, 01 Jan 2026 00:01:30 GMT")), "")).retryAfterMs())
                .isEqualTo(90_000L);
    }

    @Test
    void rateLimitResetHeaderReachesTheQuotaVerdict_FC3_BO5() {
        Verdict v = classifier.classify(error(429, Map.of("x-ratelimit-reset-requests", List.of("6m0s")), "insufficient_quota"));
        assertThat(v).isEqualTo(new Verdict(FailureReason.QUOTA_EXHAUSTED, 429, true, 360_000L));
    }

    @Test
    void timeout408KeepsItsHint_FC3() {
        assertThat(classifier.classify(error(408, Map.of("Retry-After", List.of("2")), "")).retryAfterMs()).isEqualTo(2_000L);
    }

    @Test
    void unparseableHintsAreIgnoredNotAnError_FC3() {
        Verdict v = classifier.classify(error(429, Map.of("Retry-After", List.of("soon"), "x-ratelimit-reset-requests", List.of("later")), ""));
        assertThat(v).isEqualTo(new Verdict(FailureReason.RATE_LIMIT_EXCEEDED, 429, true, null));
    }

    @Test
    void aFailedOAuthRefreshIsExpiredNotAPlainAuthError_CC6() {
        UpstreamError e = new UpstreamError(new ResponseHead(401, Map.of()), "{}", "expired", "authentication_error",
                "OAuth token expired and refresh failed: invalid_grant");
        assertThat(classifier.classify(e)).isEqualTo(new Verdict(FailureReason.EXPIRED, 401, true, null));
    }
}
