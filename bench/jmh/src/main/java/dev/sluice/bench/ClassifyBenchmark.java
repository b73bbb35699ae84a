package dev.sluice.bench;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Classifying an upstream failure (SPEC §5, {@link FailureClassifier#classify}): what every failed
 * attempt costs before the resilience engine routes its verdict. The failures are shaped like
 * real upstream answers; they are built once, outside the measurement.
 *
 * <p>Not final: JMH generates subclasses of benchmark and state classes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class ClassifyBenchmark {

    /** Which failure is classified. */
    @Param({"openai_429_retry_after", "gemini_429_resource_exhausted", "html_503", "context_overflow_400"})
    public String failure;

    private FailureClassifier classifier;
    private UpstreamFailure subject;

    /** Builds the classifier and the failure. */
    @Setup
    public void build() {
        classifier = new FailureClassifier(InstantSource.fixed(Instant.parse("2026-06-01T12:00:00Z")), ErrorRules.NONE);
        subject = switch (failure) {
            case "openai_429_retry_after" -> new UpstreamError(new ResponseHead(429, Map.of(
                    "Content-Type", List.of("application/json; charset=utf-8"),
                    "Retry-After", List.of("20"),
                    "x-ratelimit-limit-tokens", List.of("30000"),
                    "x-ratelimit-remaining-tokens", List.of("0"),
                    "x-ratelimit-reset-requests", List.of("120ms"),
                    "x-ratelimit-reset-tokens", List.of("6m0s"),
                    "x-request-id", List.of("req_6c1c5f0e8a3b4d2f9e7a1b0c3d5e7f90"))),
                    """
                    {"error":{"message":"Rate limit reached for gpt-4.1 in organization org-AbCdEf123456 on tokens per min \
                    (TPM): Limit 30000, Used 29412, Requested 1873. Please try again in 2.57s. Visit \
                    https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,\
                    "code":"rate_limit_exceeded"}}""",
                    "rate_limit_exceeded", "tokens", "Rate limit reached for gpt-4.1 in organization org-AbCdEf123456");
            case "gemini_429_resource_exhausted" -> new UpstreamError(new ResponseHead(429, Map.of(
                    "Content-Type", List.of("application/json; charset=UTF-8"))),
                    GEMINI_429, "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED",
                    "You exceeded your current quota, please check your plan and billing details.",
                    new RetryHint(86_399_000L, RetryHint.GOOGLE_RPC_RETRY_INFO));
            case "html_503" -> new UpstreamError(new ResponseHead(503, Map.of(
                    "Content-Type", List.of("text/html"),
                    "Server", List.of("cloudflare"),
                    "Cache-Control", List.of("private, max-age=0, no-store, no-cache, must-revalidate"))),
                    HTML_503, null, null, null);
            case "context_overflow_400" -> new UpstreamError(new ResponseHead(400, Map.of(
                    "Content-Type", List.of("application/json"))),
                    """
                    {"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages \
                    resulted in 131072 tokens. Please reduce the length of the messages.","type":"invalid_request_error",\
                    "param":"messages","code":"context_length_exceeded"}}""",
                    "context_length_exceeded", "invalid_request_error",
                    "This model's maximum context length is 128000 tokens.");
            default -> throw new IllegalArgumentException("unknown failure " + failure);
        };
    }

    /**
     * One classification.
     *
     * @param bh the sink
     */
    @Benchmark
    public void classify(Blackhole bh) {
        bh.consume(classifier.classify("openai", ProviderClass.APIKEY, subject));
    }

    /** Google's answer to an exhausted free-tier quota, as the Gemini plugin's golden file has it. */
    private static final String GEMINI_429 = """
            {
              "error": {
                "code": 429,
                "message": "You exceeded your current quota, please check your plan and billing details. For more \
            information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\\n* Quota exceeded for \
            metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 250, model: \
            gemini-2.5-pro\\nPlease retry in 86399.187s.",
                "status": "RESOURCE_EXHAUSTED",
                "details": [
                  {
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [
                      {
                        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                        "quotaDimensions": {"location": "global", "model": "gemini-2.5-pro"},
                        "quotaValue": "250"
                      }
                    ]
                  },
                  {
                    "@type": "type.googleapis.com/google.rpc.Help",
                    "links": [{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]
                  },
                  {
                    "@type": "type.googleapis.com/google.rpc.RetryInfo",
                    "retryDelay": "86399s"
                  }
                ]
              }
            }
            """;

    /** A CDN's 503 page in front of an overloaded upstream (about 2 KB). */
    private static final String HTML_503 = """
            <!DOCTYPE html>
            <!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
            <!--[if IE 7]>    <html class="no-js ie7 oldie" lang="en-US"> <![endif]-->
            <!--[if IE 8]>    <html class="no-js ie8 oldie" lang="en-US"> <![endif]-->
            <!--[if gt IE 8]><!--> <html class="no-js" lang="en-US"> <!--<![endif]-->
            <head>
            <title>api.upstream.example | 503: Service temporarily unavailable</title>
            <meta charset="UTF-8" />
            <meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
            <meta http-equiv="X-UA-Compatible" content="IE=Edge" />
            <meta name="robots" content="noindex, nofollow" />
            <meta name="viewport" content="width=device-width,initial-scale=1" />
            <link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" />
            </head>
            <body>
            <div id="cf-wrapper">
              <div id="cf-error-details" class="p-0">
                <header class="mx-auto pt-10 lg:pt-6 lg:px-8 w-240 lg:w-full mb-8">
                  <h1 class="inline-block sm:block sm:mb-2 font-light text-60 lg:text-4xl text-black-dark leading-tight mr-2">
                    <span class="inline-block">Service temporarily unavailable</span>
                    <span class="code-label">Error code 503</span>
                  </h1>
                  <div>Visit <a href="https://www.upstream.example/503" target="_blank" rel="noopener noreferrer">upstream.example</a> for more information.</div>
                  <div class="mt-3">2026-06-01 12:00:00 UTC</div>
                </header>
                <div class="my-8 bg-gradient-gray">
                  <div class="w-240 lg:w-full mx-auto">
                    <div class="clearfix md:px-8">
                      <div id="cf-host-status" class="cf-error-source relative w-1/3 md:w-full py-15 md:p-0 md:py-8 md:text-left md:border-solid md:border-0 md:border-b md:border-gray-400 overflow-hidden float-left md:float-none text-center">
                        <span class="md:block w-full truncate">api.upstream.example</span>
                        <h3 class="md:inline-block mt-3 md:mt-0 text-2xl text-gray-600 font-light leading-1.3">Host</h3>
                        <span class="leading-1.3 text-2xl text-red-error">Error</span>
                      </div>
                    </div>
                  </div>
                </div>
                <div class="w-240 lg:w-full mx-auto mb-8 lg:px-8">
                  <div class="clearfix">
                    <div class="w-1/2 md:w-full float-left pr-6 md:pb-10 md:pr-0 leading-relaxed">
                      <h2 class="text-3xl font-normal leading-1.3 mb-4">What happened?</h2>
                      <p>The server is temporarily unable to service your request due to maintenance downtime or capacity problems. Please try again later.</p>
                    </div>
                  </div>
                </div>
                <div class="cf-error-footer cf-wrapper w-240 lg:w-full py-10 sm:py-4 sm:px-8 mx-auto text-center sm:text-left border-solid border-0 border-t border-gray-300">
                  <p class="text-13"><span class="cf-footer-item sm:block sm:mb-1">Ray ID: <strong class="font-semibold">8f2c3a1b4d5e6f70</strong></span></p>
                </div>
              </div>
            </div>
            </body>
            </html>
            """;
}
