package dev.sluice.runtime.resilience.classify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.classify.Verdict.HintSource;
import dev.sluice.testkit.TestClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The failure classifier against real-looking upstream answers (SPEC §5 FC-1…FC-4; BO-5, BO-7,
 * CC-4, CC-6, ML-1). Every case asserts the whole verdict.
 */
class FailureClassifierTest {

    /** 2026-03-10T15:30:00Z: 8.5 h before the next UTC midnight. */
    private static final Instant NOW = Instant.parse("2026-03-10T15:30:00Z");
    private static final long NOW_S = NOW.getEpochSecond();
    private static final long UNTIL_MIDNIGHT_MS = 30_600_000L;

    private final FailureClassifier classifier = new FailureClassifier(TestClock.at(NOW), ErrorRules.NONE);

    private static final ProviderClass APIKEY = ProviderClass.APIKEY;
    private static final ProviderClass OAUTH = ProviderClass.OAUTH;
    private static final ProviderClass LOCAL = ProviderClass.LOCAL;

    private static final FailureReason RATE = FailureReason.RATE_LIMIT_EXCEEDED;
    private static final FailureReason QUOTA = FailureReason.QUOTA_EXHAUSTED;
    private static final LockScope MODEL = LockScope.MODEL;
    private static final LockScope CONN = LockScope.CONNECTION;
    private static final LockScope EXACT = LockScope.EXACT;

    // ------------------------------------------------------------------ the table

    /** One row: an upstream failure and the whole verdict it must give. */
    record Case(String name, String provider, ProviderClass connectionClass, UpstreamFailure failure, Verdict expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void classifiesRealUpstreamFailures_FC1_FC2_FC3_FC4(Case c) {
        assertThat(classifier.classify(c.provider(), c.connectionClass(), c.failure())).isEqualTo(c.expected());
    }

    @Test
    void theTableHasAtLeastEightyCases_FC1() {
        assertThat(cases().count()).isGreaterThanOrEqualTo(80);
    }

    static Stream<Case> cases() {
        List<Case> t = new ArrayList<>();

        // ---------------------------------------------------------------- transport (FC-1, CB-3)
        t.add(c("FC1 transport timeout is timeout 504 exact", "openai", APIKEY,
                new TransportError(TransportErrorKind.TIMEOUT, "HttpTimeoutException: request timed out"),
                x(FailureReason.TIMEOUT, 504, true, EXACT)));
        t.add(c("FC1 connection refused is network_error 502", "glm", APIKEY,
                new TransportError(TransportErrorKind.CONNECT_FAILED, "ConnectException: Connection refused"),
                x(FailureReason.NETWORK_ERROR, 502, true, EXACT)));
        t.add(c("FC1 connection reset is network_error 502", "anthropic", APIKEY,
                new TransportError(TransportErrorKind.CONNECTION_RESET, "IOException: Connection reset by peer"),
                x(FailureReason.NETWORK_ERROR, 502, true, EXACT)));
        t.add(c("FC1 DNS failure is network_error 502", "deepseek", APIKEY,
                new TransportError(TransportErrorKind.DNS, "UnknownHostException: api.deepseek.com"),
                x(FailureReason.NETWORK_ERROR, 502, true, EXACT)));
        t.add(c("FC1 other I/O failure is network_error 502", "minimax", APIKEY,
                new TransportError(TransportErrorKind.OTHER, "SSLHandshakeException: Remote host terminated the handshake"),
                x(FailureReason.NETWORK_ERROR, 502, true, EXACT)));
        t.add(c("FC1 CB3 unusable 2xx answer is quality_failure 502 that skips the breaker", "openai", APIKEY,
                new TransportError(TransportErrorKind.PROTOCOL, "200 OK with an empty choices array"),
                x(FailureReason.QUALITY_FAILURE, 502, true, EXACT).skipBreaker()));
        t.add(c("FC1 a 302 error answer is quality_failure 502", "agentrouter", APIKEY,
                e(302, "<html><body>Moved</body></html>").header("location", "https://login.example.com/").build(),
                x(FailureReason.QUALITY_FAILURE, 502, true, EXACT).skipBreaker()));

        // ---------------------------------------------------------------- 5xx, 408, HTML pages (FC-1, ML-1)
        t.add(c("FC1 OpenAI 500 server_error", "openai", APIKEY,
                e(500, """
                        {"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}""")
                        .type("server_error").build(),
                x(FailureReason.SERVER_ERROR, 500, true, EXACT)));
        t.add(c("FC1 OpenAI 503 engine overloaded", "openai", APIKEY,
                e(503, """
                        {"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}""").build(),
                x(FailureReason.SERVER_ERROR, 503, true, EXACT)));
        t.add(c("FC1 Anthropic 529 overloaded_error keeps its status", "anthropic", APIKEY,
                e(529, """
                        {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}""").type("overloaded_error").build(),
                x(FailureReason.SERVER_ERROR, 529, true, EXACT)));
        t.add(c("FC1 Gemini 503 UNAVAILABLE model overloaded", "gemini", APIKEY,
                e(503, """
                        {
                          "error": {
                            "code": 503,
                            "message": "The model is overloaded. Please try again later.",
                            "status": "UNAVAILABLE"
                          }
                        }""").build(),
                x(FailureReason.SERVER_ERROR, 503, true, EXACT)));
        t.add(c("FC1 GLM 500 内部错误", "glm", APIKEY,
                e(500, """
                        {"error":{"code":"500","message":"内部错误，请稍后重试"}}""").code("500").build(),
                x(FailureReason.SERVER_ERROR, 500, true, EXACT)));
        t.add(c("FC1 Cloudflare 502 Bad gateway HTML page", "agentrouter", APIKEY,
                e(502, """
                        <!DOCTYPE html>
                        <html lang="en-US"><head><title>agentrouter.org | 502: Bad gateway</title></head>
                        <body><div id="cf-error-details"><h1>Bad gateway</h1><span>Error code 502</span>
                        <p>The web server reported a bad gateway error.</p><span>Cloudflare Ray ID: 8f1c2a3b4c5d6e7f</span></div></body></html>""")
                        .header("server", "cloudflare").header("content-type", "text/html").build(),
                x(FailureReason.SERVER_ERROR, 502, true, EXACT)));
        t.add(c("FC1 Cloudflare 524 a timeout occurred", "opencode", APIKEY,
                e(524, """
                        <!DOCTYPE html><html><head><title>opencode.ai | 524: A timeout occurred</title></head>
                        <body><h1>A timeout occurred</h1><p>The origin web server timed out responding to this request.</p></body></html>""")
                        .build(),
                x(FailureReason.SERVER_ERROR, 524, true, EXACT)));
        t.add(c("FC1 nginx 504 Gateway Time-out", "openai-compatible-local", APIKEY,
                e(504, """
                        <html>
                        <head><title>504 Gateway Time-out</title></head>
                        <body>
                        <center><h1>504 Gateway Time-out</h1></center>
                        <hr><center>nginx/1.24.0</center>
                        </body>
                        </html>""").build(),
                x(FailureReason.SERVER_ERROR, 504, true, EXACT)));
        t.add(c("FC1 FC3 503 with Retry-After carries the header hint", "mistral", APIKEY,
                e(503, """
                        {"object":"error","message":"Service unavailable","type":"service_unavailable"}""")
                        .header("Retry-After", "120").build(),
                x(FailureReason.SERVER_ERROR, 503, true, EXACT).hint(120_000, HintSource.HEADER)));
        t.add(c("FC1 408 Request Timeout is timeout exact", "deepseek", APIKEY,
                e(408, "Request Timeout").build(),
                x(FailureReason.TIMEOUT, 408, true, EXACT)));
        t.add(c("FC1 500 with a binary garbage body still classifies", "minimax", APIKEY,
                e(500, "\u0000\u001f\u008b\b\u0000\u0000\u0000\u0000\u0000\u0003\uFFFD\uFFFD\u0001\u0002").build(),
                x(FailureReason.SERVER_ERROR, 500, true, EXACT)));

        // ---------------------------------------------------------------- 429: rate limits (FC-2, FC-3)
        t.add(c("FC2 FC3 OpenAI RPM 429 is a rate limit with the x-ratelimit-reset-requests hint", "openai", APIKEY,
                e(429, """
                        {"error":{"message":"Rate limit reached for gpt-4o in organization org-abc123 on requests per min (RPM): Limit 500, Used 500, Requested 1. Please try again in 120ms. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"requests","param":null,"code":"rate_limit_exceeded"}}""")
                        .code("rate_limit_exceeded").type("requests")
                        .header("x-ratelimit-limit-requests", "500").header("x-ratelimit-remaining-requests", "0")
                        .header("x-ratelimit-reset-requests", "120ms").build(),
                x(RATE, 429, true, MODEL).hint(120, HintSource.HEADER)));
        t.add(c("FC2 FC3 OpenAI TPM 429 without headers takes the body text hint", "openai", APIKEY,
                e(429, """
                        {"error":{"message":"Rate limit reached for gpt-4.1 in organization org-abc123 on tokens per min (TPM): Limit 30000, Used 27512, Requested 6001. Please try again in 7.026s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}""")
                        .code("rate_limit_exceeded").build(),
                x(RATE, 429, true, MODEL).hint(7_026, HintSource.BODY_TEXT)));
        t.add(c("FC2 FC3 Anthropic 429 rate_limit_error prefers Retry-After over the anthropic reset headers", "anthropic", APIKEY,
                e(429, """
                        {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (6a0d9f1e) of 50,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later. You may also contact sales at https://www.anthropic.com/contact-sales to discuss your options for a rate limit increase."}}""")
                        .type("rate_limit_error").header("retry-after", "30")
                        .header("anthropic-ratelimit-input-tokens-remaining", "0")
                        .header("anthropic-ratelimit-input-tokens-reset", "2026-03-10T15:31:00Z").build(),
                x(RATE, 429, true, MODEL).hint(30_000, HintSource.HEADER)));
        t.add(c("FC3 Anthropic 429 without Retry-After takes the reset of the exhausted limit", "anthropic", APIKEY,
                e(429, """
                        {"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your per-minute rate limit"}}""")
                        .type("rate_limit_error")
                        .header("anthropic-ratelimit-requests-remaining", "0")
                        .header("anthropic-ratelimit-requests-reset", "2026-03-10T15:30:12Z")
                        .header("anthropic-ratelimit-tokens-remaining", "71000")
                        .header("anthropic-ratelimit-tokens-reset", "2026-03-10T15:30:02Z").build(),
                x(RATE, 429, true, MODEL).hint(12_000, HintSource.HEADER)));
        t.add(c("FC2 the Claude account-rate-limit wording is only a rate limit on other providers", "anthropic", APIKEY,
                e(429, """
                        {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}""")
                        .type("rate_limit_error").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 DeepSeek 429 Rate Limit Reached", "deepseek", APIKEY,
                e(429, """
                        {"error":{"message":"Rate Limit Reached","type":"rate_limit_error","param":null,"code":"rate_limit_reached"}}""").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 Mistral 429 requests rate limit exceeded", "mistral", APIKEY,
                e(429, """
                        {"message":"Requests rate limit exceeded"}""").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 MiniMax 429 rate limit exceeded(RPM)", "minimax", APIKEY,
                e(429, """
                        {"type":"error","error":{"type":"rate_limit_error","message":"rate limit exceeded(RPM) (1002)"}}""").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 GLM 1305 当前API请求过多 is a rate limit", "glm", APIKEY,
                e(429, """
                        {"error":{"code":"1305","message":"当前API请求过多，请稍后重试。"}}""").code("1305").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 请求过于频繁 stays a rate limit", "qwen", APIKEY,
                e(429, """
                        {"error":{"message":"请求过于频繁，请稍后重试。","type":"throttling"}}""").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 OpenRouter upstream throttle of a free model is a rate limit", "openrouter", APIKEY,
                e(429, """
                        {"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"google/gemini-2.0-flash-exp:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations","provider_name":"Google AI Studio"}},"user_id":"user_2abc"}""")
                        .build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 Vertex Resource exhausted without a quota window is a rate limit", "vertex", APIKEY,
                e(429, """
                        {"error":{"code":429,"message":"Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.","status":"RESOURCE_EXHAUSTED"}}""")
                        .build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 Gemini free-tier per-minute 429 with RetryInfo 33s is a rate limit despite quota words", "gemini", APIKEY,
                e(429, """
                        {
                          "error": {
                            "code": 429,
                            "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: gemini-2.5-flash\\nPlease retry in 33.207542175s.",
                            "status": "RESOURCE_EXHAUSTED",
                            "details": [
                              {
                                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                                "violations": [
                                  {
                                    "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                                    "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                                    "quotaDimensions": {"location": "global", "model": "gemini-2.5-flash"},
                                    "quotaValue": "10"
                                  }
                                ]
                              },
                              {"@type": "type.googleapis.com/google.rpc.Help", "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]},
                              {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "33s"}
                            ]
                          }
                        }""").retryHint(33_000, RetryHint.GOOGLE_RPC_RETRY_INFO).build(),
                x(RATE, 429, true, MODEL).hint(33_000, HintSource.GOOGLE_RPC_RETRY_INFO)));
        t.add(c("FC2 FC3 Gemini RetryInfo found in the body when the executor gave none", "gemini", APIKEY,
                e(429, """
                        {"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26.66s"}]}}""")
                        .build(),
                x(RATE, 429, true, MODEL).hint(26_660, HintSource.GOOGLE_RPC_RETRY_INFO)));
        t.add(c("FC2 Gemini PerDay quota id with a 43s RetryInfo is still a rate limit (declared window wins)", "gemini", APIKEY,
                e(429, """
                        {"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.\\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: gemini-2.5-flash\\nPlease retry in 43.1s.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"43s"}]}}""")
                        .retryHint(43_000, RetryHint.GOOGLE_RPC_RETRY_INFO).build(),
                x(RATE, 429, true, MODEL).hint(43_000, HintSource.GOOGLE_RPC_RETRY_INFO)));
        t.add(c("FC2 Groq RPD 429 with try-again-in window is a rate limit", "groq", APIKEY,
                e(429, """
                        {"error":{"message":"Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01abc` service tier `on_demand` on requests per day (RPD): Limit 1000, Used 1000, Requested 1. Please try again in 1m26.4s. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing","type":"requests","code":"rate_limit_exceeded"}}""")
                        .build(),
                x(RATE, 429, true, MODEL).hint(86_400, HintSource.BODY_TEXT)));
        t.add(c("FC3 retry_after_ms in a JSON body is a BODY_JSON hint", "opencode", APIKEY,
                e(429, """
                        {"error":{"type":"rate_limited","message":"Slow down","retry_after_ms":1500}}""").build(),
                x(RATE, 429, true, MODEL).hint(1_500, HintSource.BODY_JSON)));
        t.add(c("FC3 retryAfter ISO time in a JSON body is a BODY_JSON hint", "agentrouter", APIKEY,
                e(429, """
                        {"error":{"code":"throttled","message":"Too many requests","retryAfter":"2026-03-10T15:31:30Z"}}""").build(),
                x(RATE, 429, true, MODEL).hint(90_000, HintSource.BODY_JSON)));
        t.add(c("FC3 x-ratelimit-reset epoch seconds header", "github-models", APIKEY,
                e(429, """
                        {"error":{"code":"RateLimitReached","message":"Rate limit of 15 per 60s exceeded for UserByModelByMinute."}}""")
                        .header("x-ratelimit-reset", String.valueOf(NOW_S + 45)).build(),
                x(RATE, 429, true, MODEL).hint(45_000, HintSource.HEADER)));
        t.add(c("FC2 empty 429 body is a rate limit", "opencode", APIKEY,
                e(429, "").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC2 binary garbage 429 body is a rate limit", "opencode", APIKEY,
                e(429, "\uFFFD\uFFFDPNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR\u0000\u0000\u0001").build(),
                x(RATE, 429, true, MODEL)));
        t.add(c("FC3 garbage hint numbers are ignored, never an exception", "opencode", APIKEY,
                e(429, "retry after 99999999999999999999999s; resets at 2026-99-99T99:99:99Z")
                        .header("retry-after", "99999999999999999999999999")
                        .header("x-ratelimit-reset-requests", "1e400s").build(),
                x(RATE, 429, true, MODEL)));

        // ---------------------------------------------------------------- 429: concurrency (FC-2, CC-4)
        t.add(c("FC2 CC4 GLM 1302 并发数过高 is concurrency_limited, 1 s, connection, no breaker", "glm", APIKEY,
                e(429, """
                        {"error":{"code":"1302","message":"您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。"}}""").code("1302").build(),
                x(FailureReason.CONCURRENCY_LIMITED, 429, true, CONN).cooldown(1_000).skipBreaker()));
        t.add(c("FC2 CC4 too many concurrent requests with Retry-After uses the hint as cooldown", "agentrouter", APIKEY,
                e(429, """
                        {"error":{"message":"Too many concurrent requests for this account. Please wait for a running request to finish.","type":"rate_limit_error"}}""")
                        .header("retry-after", "2").build(),
                x(FailureReason.CONCURRENCY_LIMITED, 429, true, CONN).cooldown(2_000).skipBreaker().hint(2_000, HintSource.HEADER)));
        t.add(c("FC2 CC4 parallel request limit", "opencode", APIKEY,
                e(429, """
                        {"error":{"message":"parallel request limit reached (4)"}}""").build(),
                x(FailureReason.CONCURRENCY_LIMITED, 429, true, CONN).cooldown(1_000).skipBreaker()));
        t.add(c("FC2 CC4 concurrency limit with a short body window keeps that window as cooldown", "together", APIKEY,
                e(429, """
                        {"error":{"message":"Concurrency limit exceeded for model. Please retry in 3s.","type":"rate_limit"}}""").build(),
                x(FailureReason.CONCURRENCY_LIMITED, 429, true, CONN).cooldown(3_000).skipBreaker().hint(3_000, HintSource.BODY_TEXT)));
        t.add(c("FC2 an explicit quota body beats a concurrency pattern", "agentrouter", APIKEY,
                e(429, """
                        {"error":{"message":"Too many concurrent requests. Your monthly quota has been exceeded."}}""").build(),
                x(QUOTA, 429, true, MODEL)));

        // ---------------------------------------------------------------- 429: quotas (FC-2, BO-5)
        t.add(c("FC2 CC6 OpenAI 429 insufficient_quota is terminal credits_exhausted", "openai", APIKEY,
                e(429, """
                        {"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}""")
                        .code("insufficient_quota").type("insufficient_quota").build(),
                x(FailureReason.CREDITS_EXHAUSTED, 429, true, CONN).credits()));
        t.add(c("FC2 CC6 GLM 1113 余额不足 is terminal credits_exhausted", "glm", APIKEY,
                e(429, """
                        {"error":{"code":"1113","message":"余额不足或无可用资源包,请充值。"}}""").code("1113").build(),
                x(FailureReason.CREDITS_EXHAUSTED, 429, true, CONN).credits()));
        t.add(c("FC2 CC6 Moonshot suspended for billing is terminal credits_exhausted", "moonshot", APIKEY,
                e(429, """
                        {"error":{"message":"Your account org-8d2f<ak-ev3x> is suspended, please check your plan and billing details","type":"exceeded_current_quota_error"}}""")
                        .build(),
                x(FailureReason.CREDITS_EXHAUSTED, 429, true, CONN).credits()));
        t.add(c("FC2 Gemini daily quota with RetryInfo 86399s is quota_exhausted until that reset", "gemini", APIKEY,
                e(429, """
                        {"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.\\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"86399s"}]}}""")
                        .retryHint(86_399_000, RetryHint.GOOGLE_RPC_RETRY_INFO).build(),
                x(QUOTA, 429, true, MODEL).cooldown(86_399_000).hint(86_399_000, HintSource.GOOGLE_RPC_RETRY_INFO)));
        t.add(c("FC2 Gemini per-day quota without RetryInfo cools until the next UTC midnight", "gemini", APIKEY,
                e(429, """
                        {"error":{"code":429,"message":"Quota exceeded for quota metric 'Generate Content API requests per day' and limit 'GenerateContent request limit per day' of service 'generativelanguage.googleapis.com' for consumer 'project_number:123456'.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","metadata":{"quota_limit":"GenerateRequestsPerDayPerProjectPerModel"}}]}}""")
                        .build(),
                x(QUOTA, 429, true, MODEL).cooldown(UNTIL_MIDNIGHT_MS)));
        t.add(c("FC2 BO5 Gemini CLI exhausted capacity with reset-after text is quota with the announced reset", "gemini-cli", OAUTH,
                e(429, """
                        {"error":{"code":429,"message":"You have exhausted your capacity on this model. Your quota will reset after 2h13m5s.","status":"RESOURCE_EXHAUSTED"}}""")
                        .build(),
                x(QUOTA, 429, true, MODEL).hint(7_985_000, HintSource.BODY_TEXT)));
        t.add(c("FC2 BO5 Antigravity individual quota reached resets in 164h", "antigravity", OAUTH,
                e(429, """
                        {"error":{"code":429,"message":"Individual quota reached. Contact your administrator to enable overages. Resets in 164h27m24s.","status":"RESOURCE_EXHAUSTED"}}""")
                        .build(),
                x(QUOTA, 429, true, MODEL).cooldown(592_044_000).hint(592_044_000, HintSource.BODY_TEXT)));
        t.add(c("FC2 Cloudflare Workers AI daily free allocation cools until midnight", "cloudflare", APIKEY,
                e(429, """
                        {"errors":[{"message":"AiError: you have used up your daily free allocation of 10,000 neurons, please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage.","code":4006}],"success":false}""")
                        .build(),
                x(QUOTA, 429, true, MODEL).cooldown(UNTIL_MIDNIGHT_MS)));
        t.add(c("FC2 Moonshot organization TPD rate limit is a daily quota", "moonshot", APIKEY,
                e(429, """
                        {"error":{"message":"request reached organization TPD rate limit, current: 1500342, limit: 1500000","type":"rate_limit_reached_error"}}""")
                        .build(),
                x(QUOTA, 429, true, MODEL).cooldown(UNTIL_MIDNIGHT_MS)));
        t.add(c("FC2 terminal TPD text keeps the midnight cooldown despite a short body window", "moonshot", APIKEY,
                e(429, """
                        {"error":{"message":"request reached organization TPD rate limit, current: 1500342, limit: 1500000. Please retry after 30s","type":"rate_limit_reached_error"}}""")
                        .build(),
                x(QUOTA, 429, true, MODEL).cooldown(UNTIL_MIDNIGHT_MS).hint(30_000, HintSource.BODY_TEXT)));
        t.add(c("FC2 daily quota text try again tomorrow cools until midnight", "deepseek-reseller", APIKEY,
                e(429, """
                        {"error":{"message":"You have used up today's quota for this key. Please try again tomorrow."}}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(UNTIL_MIDNIGHT_MS)));
        t.add(c("FC2 FC3 daily quota with a Retry-After header takes the header", "qwen", APIKEY,
                e(429, """
                        {"error":{"message":"Daily quota exceeded for this API key","code":"daily_quota_exceeded"}}""")
                        .header("retry-after", "7200").build(),
                x(QUOTA, 429, true, MODEL).cooldown(7_200_000).hint(7_200_000, HintSource.HEADER)));
        t.add(c("FC2 FC3 OpenRouter free-models-per-day with the reset echoed in the body", "openrouter", APIKEY,
                e(429, """
                        {"error":{"message":"Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"50","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1773187200000"}}},"user_id":"user_2abc"}""")
                        .build(),
                x(QUOTA, 429, true, MODEL).cooldown(UNTIL_MIDNIGHT_MS).hint(UNTIL_MIDNIGHT_MS, HintSource.BODY_JSON)));
        t.add(c("FC2 MiniMax 每日调用上限 is a daily quota", "minimax", APIKEY,
                e(429, """
                        {"base_resp":{"status_code":1041,"status_msg":"已达到每日调用上限，请明日再试"}}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(UNTIL_MIDNIGHT_MS)));
        t.add(c("FC2 GLM 1308 使用上限 with a Beijing reset time is quota with that reset", "glm", OAUTH,
                e(429, """
                        {"error":{"code":"1308","message":"已达到 5 小时的使用上限。您的限额将在 2026-03-11 01:00:00 重置。"}}""").code("1308").build(),
                x(QUOTA, 429, true, MODEL).hint(5_400_000, HintSource.BODY_TEXT)));
        t.add(c("FC2 GLM 1310 weekly cap resets at the announced Beijing time", "glm", OAUTH,
                e(429, """
                        {"error":{"code":"1310","message":"已达到每周使用上限。您的限额将在 2026-03-14 00:00:00 重置。"}}""").code("1310").build(),
                x(QUOTA, 429, true, MODEL).cooldown(261_000_000).hint(261_000_000, HintSource.BODY_TEXT)));
        t.add(c("FC2 额度已用尽 is quota_exhausted", "kimi", APIKEY,
                e(429, """
                        {"error":{"message":"您的额度已用尽，请前往控制台充值或升级套餐","type":"quota_exceeded"}}""").build(),
                x(QUOTA, 429, true, MODEL)));
        t.add(c("FC2 quota exceeded words without a window are quota_exhausted with no declared cooldown", "mistral", APIKEY,
                e(429, """
                        {"object":"error","message":"Quota exceeded for your workspace's monthly plan","type":"quota_exceeded"}""").build(),
                x(QUOTA, 429, true, MODEL)));
        t.add(c("FC2 monthly usage limit exceeded is a usage-limit quota re-checked after 1 h", "mistral", APIKEY,
                e(429, """
                        {"object":"error","message":"Monthly usage limit exceeded for your workspace","type":"usage_limit"}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(3_600_000)));
        t.add(c("FC2 Claude OAuth would-exceed-account wording is a subscription quota with the unified reset", "claude", OAUTH,
                e(429, """
                        {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your account's rate limit. Please try again later."}}""")
                        .type("rate_limit_error")
                        .header("anthropic-ratelimit-unified-status", "rejected")
                        .header("anthropic-ratelimit-unified-reset", String.valueOf(NOW_S + 7_200)).build(),
                x(QUOTA, 429, true, MODEL).cooldown(7_200_000).hint(7_200_000, HintSource.HEADER)));
        t.add(c("FC2 Claude usage limit reached without a hint cools 1 h", "claude", OAUTH,
                e(429, """
                        {"type":"error","error":{"type":"rate_limit_error","message":"Claude AI usage limit reached"}}""").type("rate_limit_error").build(),
                x(QUOTA, 429, true, MODEL).cooldown(3_600_000)));
        t.add(c("FC2 Codex usage_limit_reached cools until resets_in_seconds", "codex", OAUTH,
                e(429, """
                        {"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_at":1773165600,"resets_in_seconds":9000}}""")
                        .type("usage_limit_reached").build(),
                x(QUOTA, 429, true, MODEL).cooldown(9_000_000).hint(9_000_000, HintSource.BODY_JSON)));
        t.add(c("FC2 BO5 weekly usage limit resets in 3 days keeps the announced reset", "codex", OAUTH,
                e(429, """
                        {"error":{"type":"usage_limit_reached","message":"You've reached your weekly usage limit. Your limit resets in 3 days."}}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(259_200_000).hint(259_200_000, HintSource.BODY_TEXT)));
        t.add(c("FC2 weekly limit reached without a hint cools 24 h", "kiro", OAUTH,
                e(429, """
                        {"message":"Weekly limit reached for your plan."}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(86_400_000)));
        t.add(c("FC2 session usage limit cools 5 h", "cursor", OAUTH,
                e(429, """
                        {"error":"You have reached your session usage limit."}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(18_000_000)));
        t.add(c("FC2 MiniMax coding plan usage limit exceeded is a subscription quota", "minimax", APIKEY,
                e(429, """
                        {"type":"error","error":{"type":"rate_limit_error","message":"usage limit exceeded (2056)"}}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(3_600_000)));
        t.add(c("FC2 Modal {error: usage limit reached} is a subscription quota", "kimi-modal", APIKEY,
                e(429, """
                        {"error":"usage limit reached"}""").build(),
                x(QUOTA, 429, true, MODEL).cooldown(3_600_000)));
        t.add(c("FC2 BO5 a three-day Retry-After on a plain 429 is quota_exhausted", "agentrouter", APIKEY,
                e(429, "Too Many Requests").header("retry-after", "259200").build(),
                x(QUOTA, 429, true, MODEL).hint(259_200_000, HintSource.HEADER)));
        t.add(c("FC2 BO5 limit resets in 2 days text on a plain 429 is quota_exhausted", "opencode", APIKEY,
                e(429, """
                        {"error":"rate_limited","message":"Too many requests. Limit resets in 2 days."}""").build(),
                x(QUOTA, 429, true, MODEL).hint(172_800_000, HintSource.BODY_TEXT)));
        t.add(c("FC3 BO5 a 31-year Retry-After is capped at 30 days and is quota_exhausted", "agentrouter", APIKEY,
                e(429, "slow down").header("retry-after", "999999999").build(),
                x(QUOTA, 429, true, MODEL).hint(2_592_000_000L, HintSource.HEADER)));

        // ---------------------------------------------------------------- 402 (CC-6)
        t.add(c("CC6 DeepSeek 402 Insufficient Balance", "deepseek", APIKEY,
                e(402, """
                        {"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}""").build(),
                x(FailureReason.CREDITS_EXHAUSTED, 402, true, CONN).credits()));
        t.add(c("CC6 OpenRouter 402 requires more credits", "openrouter", APIKEY,
                e(402, """
                        {"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 8192 tokens, but can only afford 1200. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account","code":402}}""")
                        .build(),
                x(FailureReason.CREDITS_EXHAUSTED, 402, true, CONN).credits()));
        t.add(c("CC6 402 without a body", "opencode", APIKEY,
                e(402, "").build(),
                x(FailureReason.CREDITS_EXHAUSTED, 402, true, CONN).credits()));

        // ---------------------------------------------------------------- 401 (CC-6)
        t.add(c("FC1 OpenAI 401 invalid_api_key is auth_error", "openai", APIKEY,
                e(401, """
                        {"error":{"message":"Incorrect API key provided: sk-proj-****abcd. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}""")
                        .code("invalid_api_key").build(),
                x(FailureReason.AUTH_ERROR, 401, true, CONN)));
        t.add(c("CC6 Claude OAuth 401 token expired is expired", "claude", OAUTH,
                e(401, """
                        {"type":"error","error":{"type":"authentication_error","message":"OAuth token has expired. Please obtain a new token or refresh your existing token."}}""")
                        .type("authentication_error").build(),
                x(FailureReason.EXPIRED, 401, true, CONN)));
        t.add(c("CC6 401 with executor code expired is expired on any class", "agentrouter", APIKEY,
                e(401, "token refresh failed").code("expired").build(),
                x(FailureReason.EXPIRED, 401, true, CONN)));
        t.add(c("FC1 GLM 401 令牌已过期 on an API key is auth_error", "glm", APIKEY,
                e(401, """
                        {"error":{"code":"1000","message":"身份验证失败。令牌已过期或验证不正确！"}}""").code("1000").build(),
                x(FailureReason.AUTH_ERROR, 401, true, CONN)));
        t.add(c("FC1 DeepSeek 401 Authentication Fails", "deepseek", APIKEY,
                e(401, """
                        {"error":{"message":"Authentication Fails, Your api key: ****abcd is invalid","type":"authentication_error","param":null,"code":"invalid_request_error"}}""")
                        .build(),
                x(FailureReason.AUTH_ERROR, 401, true, CONN)));
        t.add(c("FC1 MiniMax 401 invalid api key", "minimax", APIKEY,
                e(401, """
                        {"type":"error","error":{"type":"authentication_error","message":"invalid api key (2049)"}}""").build(),
                x(FailureReason.AUTH_ERROR, 401, true, CONN)));

        // ---------------------------------------------------------------- banned (CC-6)
        t.add(c("CC6 OpenAI 401 account_deactivated is banned for a year", "openai", APIKEY,
                e(401, """
                        {"error":{"message":"Your OpenAI account has been deactivated, please check your email for more information. If you feel this is an error, contact us through our help center at help.openai.com.","type":"invalid_request_error","code":"account_deactivated","param":null}}""")
                        .code("account_deactivated").build(),
                x(FailureReason.BANNED, 401, true, CONN).permanent().cooldown(31_536_000_000L)));
        t.add(c("CC6 Antigravity 403 verify your account is banned", "antigravity", OAUTH,
                e(403, """
                        {"error":{"code":403,"message":"Verify your account to continue.","status":"PERMISSION_DENIED"}}""").build(),
                x(FailureReason.BANNED, 403, true, CONN).permanent().cooldown(31_536_000_000L)));
        t.add(c("CC6 a deactivation on a 429 is still banned", "openrouter", APIKEY,
                e(429, """
                        {"error":{"message":"Your account has been suspended due to a violation of our terms."}}""").build(),
                x(FailureReason.BANNED, 429, true, CONN).permanent().cooldown(31_536_000_000L)));
        t.add(c("CC6 Cloud Code service disabled for violation is banned", "gemini-cli", OAUTH,
                e(403, """
                        {"error":{"code":403,"message":"This service has been disabled in this account for violation of Terms of Service.","status":"PERMISSION_DENIED"}}""")
                        .build(),
                x(FailureReason.BANNED, 403, true, CONN).permanent().cooldown(31_536_000_000L)));

        // ---------------------------------------------------------------- 403
        t.add(c("CC6 Anthropic OAuth 403 Request not allowed is request_rejected", "claude", OAUTH,
                e(403, """
                        {"type":"error","error":{"type":"forbidden","message":"Request not allowed"}}""").type("forbidden").build(),
                x(FailureReason.REQUEST_REJECTED, 403, true, CONN)));
        t.add(c("FC1 403 not authorized for this route is forbidden without fallback or cooldown", "opencode", APIKEY,
                e(403, """
                        {"error":{"message":"This key is not authorized for this route: /v1/responses"}}""").build(),
                x(FailureReason.FORBIDDEN, 403, false, EXACT).cooldown(0)));
        t.add(c("ML1 OpenAI 403 project does not have access to model is model_access_denied", "openai", APIKEY,
                e(403, """
                        {"error":{"message":"Project `proj_abc123` does not have access to model `o3`","type":"invalid_request_error","param":null,"code":"model_not_found"}}""")
                        .code("model_not_found").build(),
                x(FailureReason.MODEL_ACCESS_DENIED, 403, true, MODEL)));
        t.add(c("ML1 403 hour quota is quota_exhausted on the model", "agentrouter", APIKEY,
                e(403, """
                        {"error":{"message":"Quota has been exceeded for this hour. Try again later."}}""").build(),
                x(QUOTA, 403, true, MODEL)));
        t.add(c("FC1 Gemini 403 API not enabled in project is auth_error", "gemini", APIKEY,
                e(403, """
                        {"error":{"code":403,"message":"Generative Language API has not been used in project 123456789 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/generativelanguage.googleapis.com/overview?project=123456789 then retry.","status":"PERMISSION_DENIED"}}""")
                        .build(),
                x(FailureReason.AUTH_ERROR, 403, true, CONN)));
        t.add(c("FC1 Anthropic 403 permission_error on a resource is auth_error", "anthropic", APIKEY,
                e(403, """
                        {"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}""")
                        .type("permission_error").build(),
                x(FailureReason.AUTH_ERROR, 403, true, CONN)));
        t.add(c("FC1 OpenAI 403 unsupported country is auth_error", "openai", APIKEY,
                e(403, """
                        {"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported","param":null,"type":"request_forbidden"}}""")
                        .code("unsupported_country_region_territory").build(),
                x(FailureReason.AUTH_ERROR, 403, true, CONN)));
        t.add(c("FC1 Cloudflare 403 block page is auth_error", "agentrouter", APIKEY,
                e(403, """
                        <!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head>
                        <body><h1>Sorry, you have been blocked</h1><h2>You are unable to access agentrouter.org</h2></body></html>""").build(),
                x(FailureReason.AUTH_ERROR, 403, true, CONN)));

        // ---------------------------------------------------------------- 404 / 410 (ML-1)
        t.add(c("ML1 OpenAI 404 model_not_found is not_found on the model without fallback", "openai", APIKEY,
                e(404, """
                        {"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}""")
                        .code("model_not_found").build(),
                x(FailureReason.NOT_FOUND, 404, false, MODEL)));
        t.add(c("ML1 Anthropic 404 not_found_error", "anthropic", APIKEY,
                e(404, """
                        {"type":"error","error":{"type":"not_found_error","message":"model: claude-3-opus-latest"}}""").type("not_found_error").build(),
                x(FailureReason.NOT_FOUND, 404, false, MODEL)));
        t.add(c("ML1 Gemini 404 retired model is not_found for 24 h", "gemini", APIKEY,
                e(404, """
                        {"error":{"code":404,"message":"This model models/gemini-1.5-pro is no longer available to new users. Please update your code to use a newer model for the latest features and improvements.","status":"NOT_FOUND"}}""")
                        .build(),
                x(FailureReason.NOT_FOUND, 404, false, MODEL).cooldown(86_400_000)));
        t.add(c("ML1 Fireworks 410 end of life is not_found for 24 h", "fireworks", APIKEY,
                e(410, """
                        {"error":{"object":"error","type":"invalid_request_error","message":"Model accounts/fireworks/models/mixtral-8x7b-instruct has reached its end of life and is no longer available."}}""")
                        .build(),
                x(FailureReason.NOT_FOUND, 410, false, MODEL).cooldown(86_400_000)));
        t.add(c("ML1 404 endpoint has moved is not_found for 24 h", "freeapi", APIKEY,
                e(404, """
                        {"error":"This API endpoint has moved. Please update your base_url to https://api.example.com/v1 — the old endpoint no longer works."}""")
                        .build(),
                x(FailureReason.NOT_FOUND, 404, false, MODEL).cooldown(86_400_000)));
        t.add(c("FC1 Ollama 404 on a local connection is not_found_local", "ollama", LOCAL,
                e(404, """
                        {"error":"model \\"llama3:70b\\" not found, try pulling it first"}""").build(),
                x(FailureReason.NOT_FOUND_LOCAL, 404, false, MODEL)));
        t.add(c("ML1 nginx 404 HTML page is not_found", "openai-compatible-x", APIKEY,
                e(404, "<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>")
                        .build(),
                x(FailureReason.NOT_FOUND, 404, false, MODEL)));

        // ---------------------------------------------------------------- 400 (FC-4, BO-7)
        t.add(c("FC4 BO7 OpenAI context_length_exceeded is request-scoped context_overflow", "openai", APIKEY,
                e(400, """
                        {"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}""")
                        .code("context_length_exceeded").build(),
                x(FailureReason.CONTEXT_OVERFLOW, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 Anthropic prompt is too long", "anthropic", APIKEY,
                e(400, """
                        {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 215031 tokens > 200000 maximum"}}""")
                        .type("invalid_request_error").build(),
                x(FailureReason.CONTEXT_OVERFLOW, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 Gemini input token count exceeds the maximum", "gemini", APIKEY,
                e(400, """
                        {"error":{"code":400,"message":"The input token count (1203452) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}""")
                        .build(),
                x(FailureReason.CONTEXT_OVERFLOW, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 DeepSeek maximum context length", "deepseek", APIKEY,
                e(400, """
                        {"error":{"message":"This model's maximum context length is 65536 tokens. However, you requested 70123 tokens (62123 in the messages, 8000 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}""")
                        .build(),
                x(FailureReason.CONTEXT_OVERFLOW, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 GLM 1261 Prompt 超长", "glm", APIKEY,
                e(400, """
                        {"error":{"code":"1261","message":"Prompt 超长"}}""").code("1261").build(),
                x(FailureReason.CONTEXT_OVERFLOW, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 Anthropic max_tokens above the model maximum is a bad parameter", "anthropic", APIKEY,
                e(400, """
                        {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5"}}""")
                        .build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 MiniMax max_tokens parameter is illegal", "minimax", APIKEY,
                e(400, """
                        {"base_resp":{"status_code":2013,"status_msg":"invalid params, max_tokens must be less than or equal to 40960"}}""").build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 empty function name is a malformed request", "openai-compatible-x", APIKEY,
                e(400, """
                        {"error":{"message":"Invalid request: function name is empty for tool_calls[0]","type":"invalid_request_error"}}""").build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 Anthropic roles must alternate is bad_request", "anthropic", APIKEY,
                e(400, """
                        {"type":"error","error":{"type":"invalid_request_error","message":"messages: roles must alternate between \\"user\\" and \\"assistant\\", but found multiple \\"user\\" roles in a row"}}""")
                        .build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 OpenAI invalid temperature is bad_request", "openai", APIKEY,
                e(400, """
                        {"error":{"message":"Invalid value for 'temperature': expected a value between 0 and 2, got 3.","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}""")
                        .code("invalid_value").build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 BO7 GLM 1301 content filter is bad_request", "glm", APIKEY,
                e(400, """
                        {"contentFilter":[{"level":1,"role":"user"}],"error":{"code":"1301","message":"系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。"}}""")
                        .code("1301").build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 structured model_not_found on a 400 is not_found with fallback", "together", APIKEY,
                e(400, """
                        {"error":{"message":"Unable to access model meta-llama/Llama-9-70B. Please visit https://api.together.ai/models to view the list of supported models.","type":"invalid_request_error","param":null,"code":"model_not_found"}}""")
                        .code("model_not_found").build(),
                x(FailureReason.NOT_FOUND, 400, true, MODEL)));
        t.add(c("FC4 Anthropic permission_error naming the model on a 400 is model_access_denied", "anthropic", APIKEY,
                e(400, """
                        {"type":"error","error":{"type":"permission_error","message":"Your organization does not have access to claude-opus-4-1. Please contact sales to request model access."}}""")
                        .type("permission_error").build(),
                x(FailureReason.MODEL_ACCESS_DENIED, 400, true, MODEL)));
        t.add(c("FC4 400 invalid model text is model_access_denied with fallback", "opencode", APIKEY,
                e(400, """
                        {"error":{"message":"Invalid model: gpt-5-codex-max. Please select a different model.","type":"invalid_request_error"}}""").build(),
                x(FailureReason.MODEL_ACCESS_DENIED, 400, true, MODEL)));
        t.add(c("FC4 400 model not supported by the Copilot plan is model_access_denied", "copilot", OAUTH,
                e(400, """
                        {"error":{"message":"The requested model is not supported.","code":"model_not_supported","param":"model","type":"invalid_request_error"}}""")
                        .code("model_not_supported").build(),
                x(FailureReason.MODEL_ACCESS_DENIED, 400, true, MODEL)));
        t.add(c("FC4 Gemini 400 API_KEY_INVALID is an auth_error of the connection", "gemini", APIKEY,
                e(400, """
                        {"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}""")
                        .build(),
                x(FailureReason.AUTH_ERROR, 400, true, CONN)));
        t.add(c("FC4 a bad-credential text suppresses model access on a 400", "openai-compatible-x", APIKEY,
                e(400, """
                        {"error":{"message":"Authentication failed for model qwen-max: unauthorized","type":"invalid_request_error"}}""").build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));
        t.add(c("FC4 rate-limit text on a 400 is rate_limit_exceeded with fallback", "mimo", APIKEY,
                e(400, """
                        {"error":{"message":"High frequency request detected, please slow down","code":"400"}}""").build(),
                x(RATE, 400, true, MODEL)));
        t.add(c("FC4 请求频率 on a 400 is rate_limit_exceeded", "qwen", APIKEY,
                e(400, """
                        {"code":"Throttling","message":"请求频率超出限制"}""").build(),
                x(RATE, 400, true, MODEL)));
        t.add(c("FC4 CC6 Anthropic credit balance too low on a 400 is credits_exhausted", "anthropic", APIKEY,
                e(400, """
                        {"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}""")
                        .build(),
                x(FailureReason.CREDITS_EXHAUSTED, 400, true, CONN).credits()));
        t.add(c("FC4 CC6 Command Code insufficient credits on a 400 is credits_exhausted", "commandcode", APIKEY,
                e(400, """
                        {"error":"You have insufficient credits to make this request. Please purchase more credits to continue using the service."}""")
                        .build(),
                x(FailureReason.CREDITS_EXHAUSTED, 400, true, CONN).credits()));
        t.add(c("FC4 BO7 a context text beyond the scanned prefix of a huge body is a plain bad_request", "openai-compatible-x", APIKEY,
                e(400, "x".repeat(FailureClassifier.MAX_SCANNED_CHARS) + " prompt is too long").build(),
                x(FailureReason.BAD_REQUEST, 400, false, EXACT).requestScoped()));

        // ---------------------------------------------------------------- other 4xx (BO-7)
        t.add(c("BO7 Anthropic 413 request_too_large is bad_request", "anthropic", APIKEY,
                e(413, """
                        {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}""").build(),
                x(FailureReason.BAD_REQUEST, 413, false, EXACT).requestScoped()));
        t.add(c("BO7 DeepSeek 422 Invalid Parameters is bad_request", "deepseek", APIKEY,
                e(422, """
                        {"error":{"message":"Failed to deserialize the JSON body into the target type: messages[0]: missing field `role`","type":"invalid_request_error"}}""")
                        .build(),
                x(FailureReason.BAD_REQUEST, 422, false, EXACT).requestScoped()));
        t.add(c("BO7 409 conflict is bad_request", "codex", OAUTH,
                e(409, """
                        {"error":{"message":"previous_response_id does not belong to this conversation","type":"invalid_request_error"}}""").build(),
                x(FailureReason.BAD_REQUEST, 409, false, EXACT).requestScoped()));
        t.add(c("FC2 432 plan limit is a subscription quota", "kiro", OAUTH,
                e(432, """
                        {"message":"Plan limit reached for this billing period"}""").build(),
                x(QUOTA, 432, true, MODEL).cooldown(3_600_000)));

        return t.stream();
    }

    // ------------------------------------------------------------------ behaviour beyond the table

    @Test
    void nullProviderAndClassAndStructuredFieldsStillClassify_FC1() {
        UpstreamError bare = new UpstreamError(new ResponseHead(429, null), null, null, null, null, null);
        assertThat(classifier.classify(null, null, bare)).isEqualTo(Verdict.of(RATE, 429, true, MODEL));
    }

    @Test
    void dailyQuotaCooldownFollowsTheClockToTheNextUtcMidnight_FC2() {
        TestClock clock = TestClock.at(Instant.parse("2026-03-10T23:59:59Z"));
        FailureClassifier c = new FailureClassifier(clock, ErrorRules.NONE);
        UpstreamError daily = e(429, "daily quota exceeded").build();

        assertThat(c.classify("x", APIKEY, daily).cooldownMs()).isEqualTo(1_000L);
        clock.advance(java.time.Duration.ofSeconds(1));
        assertThat(c.classify("x", APIKEY, daily).cooldownMs()).isEqualTo(86_400_000L);
    }

    @Test
    void namedDefaultsHaveTheSpecsValues_CC4_CC6_SE3() {
        assertThat(FailureClassifier.CONCURRENCY_LIMIT_COOLDOWN_MS).isEqualTo(1_000L);
        assertThat(FailureClassifier.BANNED_COOLDOWN_MS).isEqualTo(31_536_000_000L);
        assertThat(FailureClassifier.SUBSCRIPTION_QUOTA_COOLDOWN_MS).isEqualTo(3_600_000L);
        assertThat(FailureClassifier.WEEKLY_QUOTA_COOLDOWN_MS).isEqualTo(86_400_000L);
        assertThat(FailureClassifier.SESSION_QUOTA_COOLDOWN_MS).isEqualTo(18_000_000L);
        assertThat(FailureClassifier.DAILY_QUOTA_MAX_COOLDOWN_MS).isEqualTo(86_400_000L);
        assertThat(FailureClassifier.MODEL_RETIRED_COOLDOWN_MS).isEqualTo(86_400_000L);
        assertThat(FailureClassifier.QUOTA_SCALE_WINDOW_MS).isEqualTo(3_600_000L);
    }

    @Test
    void breakerCountsOnlyProviderLevelOutcomes_CB3() {
        assertThat(classifier.classify("p", APIKEY, e(503, "").build()).countsForBreaker()).isTrue();
        assertThat(classifier.classify("p", APIKEY, new TransportError(TransportErrorKind.CONNECT_FAILED, null))
                .countsForBreaker()).isTrue();
        assertThat(classifier.classify("p", APIKEY, new TransportError(TransportErrorKind.PROTOCOL, null))
                .countsForBreaker()).isFalse();
        assertThat(classifier.classify("p", APIKEY, e(429, "").build()).countsForBreaker()).isFalse();
        assertThat(classifier.classify("p", APIKEY, e(400, "prompt is too long").build()).countsForBreaker()).isFalse();
    }

    // ------------------------------------------------------------------ builders

    private static Case c(String name, String provider, ProviderClass cls, UpstreamFailure failure, X expected) {
        return new Case(name, provider, cls, failure, expected.build());
    }

    private static E e(int status, String body) {
        return new E(status, body);
    }

    private static X x(FailureReason reason, int status, boolean fallback, LockScope scope) {
        return new X(reason, status, fallback, scope);
    }

    /** An upstream error answer. */
    private static final class E {
        private final int status;
        private final String body;
        private final Map<String, List<String>> headers = new LinkedHashMap<>();
        private String code;
        private String type;
        private RetryHint retryHint;

        E(int status, String body) {
            this.status = status;
            this.body = body;
        }

        E header(String name, String value) {
            headers.put(name, List.of(value));
            return this;
        }

        E code(String c) {
            this.code = c;
            return this;
        }

        E type(String t) {
            this.type = t;
            return this;
        }

        E retryHint(long ms, String source) {
            this.retryHint = new RetryHint(ms, source);
            return this;
        }

        UpstreamError build() {
            return new UpstreamError(new ResponseHead(status, headers), body, code, type, null, retryHint);
        }
    }

    /** An expected verdict. */
    private static final class X {
        private final FailureReason reason;
        private final int status;
        private final boolean fallback;
        private final LockScope scope;
        private Long hintMs;
        private HintSource hintSource;
        private Long cooldownMs;
        private boolean permanent;
        private boolean credits;
        private boolean skipBreaker;
        private boolean requestScoped;

        X(FailureReason reason, int status, boolean fallback, LockScope scope) {
            this.reason = reason;
            this.status = status;
            this.fallback = fallback;
            this.scope = scope;
        }

        X hint(long ms, HintSource source) {
            this.hintMs = ms;
            this.hintSource = source;
            return this;
        }

        X cooldown(long ms) {
            this.cooldownMs = ms;
            return this;
        }

        X permanent() {
            this.permanent = true;
            return this;
        }

        X credits() {
            this.credits = true;
            return this;
        }

        X skipBreaker() {
            this.skipBreaker = true;
            return this;
        }

        X requestScoped() {
            this.requestScoped = true;
            return this;
        }

        Verdict build() {
            return new Verdict(reason, status, fallback, hintMs, hintSource, cooldownMs, scope, permanent, credits,
                    skipBreaker, requestScoped, null);
        }
    }
}
