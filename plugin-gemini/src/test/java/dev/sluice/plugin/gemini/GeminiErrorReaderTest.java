package dev.sluice.plugin.gemini;

import static dev.sluice.plugin.gemini.Fakes.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.api.upstream.UpstreamError;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Google error bodies → canonical errors with RetryInfo hints (SPEC FC-3, RQ-4). */
class GeminiErrorReaderTest {

    private static final ResponseHead HEAD_429 = new ResponseHead(429, Map.of("Content-Type", List.of("application/json")));

    @Test
    void resourceExhaustedWithRetryInfoGivesAStructuredGoogleRetryHint_RQ4() {
        String body = golden("error-429-retry-info.json");
        UpstreamError e = GeminiErrorReader.read(HEAD_429, body);
        assertThat(e.status()).isEqualTo(429);
        assertThat(e.errorCode()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(e.errorType()).isEqualTo("RESOURCE_EXHAUSTED");
        assertThat(e.message()).startsWith("You exceeded your current quota");
        assertThat(e.retryHint()).isEqualTo(new RetryHint(86_399_000L, RetryHint.GOOGLE_RPC_RETRY_INFO));
        assertThat(e.retryHint().source()).isEqualTo("google_rpc_retry_info");
        assertThat(e.body()).as("QuotaFailure violations stay available in the body").isEqualTo(body)
                .contains("google.rpc.QuotaFailure", "GenerateRequestsPerDayPerProjectPerModel-FreeTier");
        assertThat(e.head().first("content-type")).contains("application/json");
    }

    @Test
    void fractionalRetryDelaysAreReadInMilliseconds_FC3() {
        String body = """
                {"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED",
                 "details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}""";
        assertThat(GeminiErrorReader.read(HEAD_429, body).retryHint()).isEqualTo(new RetryHint(1_500, RetryHint.GOOGLE_RPC_RETRY_INFO));
    }

    @ParameterizedTest
    @CsvSource({"86399s, 86399000", "1.5s, 1500", "30s, 30000", "0s, 0", "0.000340s, 1", "2.0001s, 2001", "17.999999999s, 18000"})
    void durationsRoundUpToWholeMilliseconds(String delay, long ms) {
        assertThat(GeminiErrorReader.millis(delay)).isEqualTo(ms);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "s", "-1s", "1.5", "1m", "abc", "1.5 s", "1e3s", "1.1234567890s"})
    void unreadableDurationsAreIgnored(String delay) {
        assertThat(GeminiErrorReader.millis(delay)).isNull();
    }

    @Test
    void theObjectFormOfADurationIsReadToo() {
        assertThat(GeminiErrorReader.millis(Map.of("seconds", 2L, "nanos", 500_000_000L))).isEqualTo(2_500L);
        assertThat(GeminiErrorReader.millis(Map.of("seconds", "7"))).isEqualTo(7_000L);
        assertThat(GeminiErrorReader.millis(Map.of("seconds", -3L))).isNull();
        assertThat(GeminiErrorReader.millis(42L)).isNull();
    }

    @Test
    void invalidArgumentHasStatusAndMessageAndNoHint() {
        UpstreamError e = GeminiErrorReader.read(new ResponseHead(400, Map.of()), golden("error-400-invalid-argument.json"));
        assertThat(e.errorCode()).isEqualTo("INVALID_ARGUMENT");
        assertThat(e.errorType()).isEqualTo("INVALID_ARGUMENT");
        assertThat(e.message()).contains("function_response.name: Name cannot be empty");
        assertThat(e.retryHint()).isNull();
        assertThat(e.describe()).startsWith("HTTP 400: * GenerateContentRequest.contents[1]");
    }

    @Test
    void aNonJsonErrorBodyIsKeptAsText() {
        String body = "<html><body>502 Bad Gateway</body></html>";
        UpstreamError e = GeminiErrorReader.read(new ResponseHead(502, Map.of()), body);
        assertThat(e.body()).isEqualTo(body);
        assertThat(e.errorCode()).isNull();
        assertThat(e.errorType()).isNull();
        assertThat(e.message()).isNull();
        assertThat(e.retryHint()).isNull();
        assertThat(e.describe()).isEqualTo("HTTP 502: " + body);
    }

    @Test
    void anErrorWrappedInAnArrayIsReadAndAMissingStatusFallsBackToTheCode() {
        UpstreamError e = GeminiErrorReader.read(new ResponseHead(503, Map.of()),
                "[{\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}]");
        assertThat(e.errorCode()).isEqualTo("UNAVAILABLE");
        assertThat(e.message()).isEqualTo("The model is overloaded. Please try again later.");
        UpstreamError noStatus = GeminiErrorReader.read(new ResponseHead(500, Map.of()), "{\"error\":{\"code\":500,\"message\":\"x\"}}");
        assertThat(noStatus.errorCode()).isEqualTo("500");
        assertThat(noStatus.errorType()).isNull();
    }

    @Test
    void retryInfoWithAnUnreadableDelayOrOtherDetailsGivesNoHint() {
        assertThat(GeminiErrorReader.read(HEAD_429, """
                {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[
                  {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"soon"},
                  {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED"}]}}""").retryHint()).isNull();
        assertThat(GeminiErrorReader.read(HEAD_429, "{\"error\":{\"code\":429,\"details\":\"oops\"}}").retryHint()).isNull();
    }
}
