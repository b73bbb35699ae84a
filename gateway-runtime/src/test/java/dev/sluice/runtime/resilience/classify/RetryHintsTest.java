package dev.sluice.runtime.resilience.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.runtime.resilience.classify.RetryHints.Hint;
import dev.sluice.runtime.resilience.classify.Verdict.HintSource;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Upstream retry hints from headers, structured hints, JSON bodies and body text (SPEC FC-3, BO-2, BO-5, CC-2). */
class RetryHintsTest {

    private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    private static ResponseHead head(String... nameValue) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            h.put(nameValue[i], List.of(nameValue[i + 1]));
        }
        return new ResponseHead(429, h);
    }

    // ------------------------------------------------------------------ Retry-After

    @Test
    void retryAfterSecondsAreMilliseconds_FC3() {
        assertThat(RetryHints.parseRetryAfter("120", NOW)).contains(120_000L);
        assertThat(RetryHints.parseRetryAfter(" 0 ", NOW)).contains(0L);
        assertThat(RetryHints.parseRetryAfter("1.5", NOW)).contains(1_500L);
    }

    @Test
    void retryAfterHttpDateIsTheTimeUntilThatDate_FC3() {
        assertThat(RetryHints.parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", NOW)).contains(30_000L);
        assertThat(RetryHints.parseRetryAfter("Fri, 2 Jan 2026 00:00:00 GMT", NOW)).contains(86_400_000L);
    }

    @Test
    void retryAfterHttpDateInThePastIsZero_FC3() {
        assertThat(RetryHints.parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", NOW)).contains(0L);
    }

    @Test
    void unparseableOrNegativeRetryAfterIsIgnored_FC3() {
        assertThat(RetryHints.parseRetryAfter("soon", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("-5", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("NaN", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("2026-01-01T00:00:30Z", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("Thu, 32 Jan 2026 00:00:30 GMT", NOW)).isEmpty();
    }

    @Test
    void nonNumericLookalikesAreIgnored_FC3() {
        assertThat(RetryHints.parseRetryAfter("Infinity", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("5d", NOW)).isEmpty();
        assertThat(RetryHints.parseRetryAfter("0x1p4", NOW)).isEmpty();
        assertThat(RetryHints.parseDuration("NaN")).isEmpty();
        assertThat(RetryHints.parseDuration("Infinity")).isEmpty();
    }

    // ------------------------------------------------------------------ Go-style durations

    @Test
    void goStyleDurationsAreParsed_FC3() {
        assertThat(RetryHints.parseDuration("6m0s")).contains(360_000L);
        assertThat(RetryHints.parseDuration("20ms")).contains(20L);
        assertThat(RetryHints.parseDuration("1.5s")).contains(1_500L);
        assertThat(RetryHints.parseDuration("1h2m3s")).contains(3_723_000L);
        assertThat(RetryHints.parseDuration("2m30.5s")).contains(150_500L);
        assertThat(RetryHints.parseDuration("1s500ms")).contains(1_500L);
        assertThat(RetryHints.parseDuration("1h")).contains(3_600_000L);
        assertThat(RetryHints.parseDuration("0.0005s")).contains(1L);
    }

    @Test
    void plainNumbersAreSeconds_FC3() {
        assertThat(RetryHints.parseDuration("2")).contains(2_000L);
        assertThat(RetryHints.parseDuration("0.25")).contains(250L);
    }

    @Test
    void unparseableDurationsAreIgnored_FC3() {
        assertThat(RetryHints.parseDuration("")).isEmpty();
        assertThat(RetryHints.parseDuration("   ")).isEmpty();
        assertThat(RetryHints.parseDuration("soon")).isEmpty();
        assertThat(RetryHints.parseDuration("5 minutes")).isEmpty();
        assertThat(RetryHints.parseDuration("-3")).isEmpty();
        assertThat(RetryHints.parseDuration("3s2m")).isEmpty();
        assertThat(RetryHints.parseDuration("m")).isEmpty();
    }

    // ------------------------------------------------------------------ headers, in order

    @Test
    void retryAfterHeaderIsReadCaseInsensitively_FC3() {
        assertThat(RetryHints.fromHeaders(head("Retry-After", "7"), NOW)).contains(7_000L);
    }

    @Test
    void rateLimitResetRequestsHeaderIsRead_FC3() {
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-requests", "6m0s"), NOW)).contains(360_000L);
        assertThat(RetryHints.fromHeaders(head("X-RateLimit-Reset-Requests", "20ms"), NOW)).contains(20L);
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-requests", "1.5s"), NOW)).contains(1_500L);
    }

    @Test
    void rateLimitResetTokensHeaderIsRead_FC3() {
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-tokens", "45s"), NOW)).contains(45_000L);
    }

    @Test
    void rateLimitResetEpochHeaderIsTheTimeUntilThatInstant_FC3() {
        long inOneMinute = NOW + 60_000;
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset", String.valueOf(inOneMinute / 1000)), NOW)).contains(60_000L);
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset", String.valueOf(inOneMinute)), NOW)).contains(60_000L);
    }

    @Test
    void retryAfterComesFirstThenRequestsThenTokens_FC3() {
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-tokens", "9s", "x-ratelimit-reset-requests", "8s",
                "retry-after", "1"), NOW)).contains(1_000L);
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset-tokens", "9s", "x-ratelimit-reset-requests", "8s"), NOW))
                .contains(8_000L);
    }

    @Test
    void anUnparseableHeaderFallsThroughToTheNextOne_FC3() {
        assertThat(RetryHints.fromHeaders(head("retry-after", "later", "x-ratelimit-reset-requests", "bogus",
                "x-ratelimit-reset-tokens", "2s"), NOW)).contains(2_000L);
    }

    @Test
    void noHintHeadersGiveNoHint_FC3() {
        assertThat(RetryHints.fromHeaders(head("content-type", "application/json"), NOW)).isEmpty();
        assertThat(RetryHints.fromHeaders(head("retry-after", "whenever"), NOW)).isEmpty();
    }

    @Test
    void retryAfterAcceptsRelativeUnitDurations_FC3() {
        assertThat(RetryHints.parseRetryAfter("30s", NOW)).contains(30_000L);
        assertThat(RetryHints.parseRetryAfter("5m", NOW)).contains(300_000L);
        assertThat(RetryHints.parseRetryAfter("1h", NOW)).contains(3_600_000L);
    }

    @Test
    void smallRateLimitResetValuesAreSecondsFromNow_FC3() {
        assertThat(RetryHints.parseEpochReset("60", NOW)).contains(60_000L);
        assertThat(RetryHints.parseEpochReset("0", NOW)).contains(0L);
        assertThat(RetryHints.parseEpochReset(String.valueOf(NOW / 1000 - 10), NOW)).contains(0L);
    }

    @Test
    void headerHintsAreAnnouncedResetsFromTheHeader_FC3() {
        assertThat(RetryHints.headerHint(head("retry-after", "7"), NOW))
                .contains(new Hint(7_000, HintSource.HEADER, true));
        assertThat(RetryHints.headerHint(head("content-type", "text/plain"), NOW)).isEmpty();
        assertThat(RetryHints.headerHint(null, NOW)).isEmpty();
    }

    @Test
    void headerHintsAreCappedAtThirtyDays_CC2_BO5() {
        assertThat(RetryHints.fromHeaders(head("retry-after", "999999999"), NOW)).contains(2_592_000_000L);
        assertThat(RetryHints.fromHeaders(head("retry-after", "259200"), NOW)).contains(259_200_000L);
        assertThat(RetryHints.fromHeaders(head("x-ratelimit-reset", String.valueOf(NOW / 1000 + 40 * 86_400)), NOW))
                .contains(2_592_000_000L);
    }

    @Test
    void anthropicResetHeadersComeLast_FC3() {
        assertThat(RetryHints.fromHeaders(head("anthropic-ratelimit-requests-reset", "2026-01-01T00:00:20Z",
                "x-ratelimit-reset-tokens", "3s"), NOW)).contains(3_000L);
    }

    @Test
    void anthropicUnifiedResetWinsAndMayBeEpochSeconds_FC3() {
        assertThat(RetryHints.fromHeaders(head("anthropic-ratelimit-unified-reset", String.valueOf(NOW / 1000 + 3_600),
                "anthropic-ratelimit-requests-reset", "2026-01-01T00:00:05Z"), NOW)).contains(3_600_000L);
    }

    @Test
    void anthropicResetOfTheExhaustedLimitWins_FC3() {
        assertThat(RetryHints.fromHeaders(head(
                "anthropic-ratelimit-requests-reset", "2026-01-01T00:00:05Z", "anthropic-ratelimit-requests-remaining", "12",
                "anthropic-ratelimit-output-tokens-reset", "2026-01-01T00:00:40Z", "anthropic-ratelimit-output-tokens-remaining", "0",
                "anthropic-ratelimit-input-tokens-reset", "2026-01-01T00:00:50Z", "anthropic-ratelimit-input-tokens-remaining", "900"),
                NOW)).contains(40_000L);
    }

    @Test
    void withoutAnExhaustedAnthropicLimitTheEarliestResetIsTaken_FC3() {
        assertThat(RetryHints.fromHeaders(head("anthropic-ratelimit-requests-reset", "2026-01-01T00:00:05Z",
                "anthropic-ratelimit-tokens-reset", "2026-01-01T00:01:00Z",
                "anthropic-ratelimit-input-tokens-reset", "garbage"), NOW)).contains(5_000L);
    }

    // ------------------------------------------------------------------ structured (executor) hints

    @Test
    void structuredGoogleHintKeepsItsSourceAndIsCappedAt24Hours_FC3_CC2() {
        assertThat(RetryHints.fromStructured(new RetryHint(33_000, RetryHint.GOOGLE_RPC_RETRY_INFO)))
                .contains(new Hint(33_000, HintSource.GOOGLE_RPC_RETRY_INFO, false));
        assertThat(RetryHints.fromStructured(new RetryHint(100_000_000, RetryHint.GOOGLE_RPC_RETRY_INFO)))
                .contains(new Hint(86_400_000, HintSource.GOOGLE_RPC_RETRY_INFO, false));
    }

    @Test
    void otherStructuredHintsAreBodyText_FC3() {
        assertThat(RetryHints.fromStructured(new RetryHint(17_000, RetryHint.BODY_TEXT)))
                .contains(new Hint(17_000, HintSource.BODY_TEXT, false));
        assertThat(RetryHints.fromStructured(new RetryHint(5, "something_new")))
                .contains(new Hint(5, HintSource.BODY_TEXT, false));
        assertThat(RetryHints.fromStructured(null)).isEmpty();
    }

    // ------------------------------------------------------------------ body JSON

    private static Hint google(long ms) {
        return new Hint(ms, HintSource.GOOGLE_RPC_RETRY_INFO, false);
    }

    private static String retryInfo(String delay) {
        return """
                {"error":{"code":429,"status":"resource_exhausted","details":[
                  {"@type": "type.googleapis.com/google.rpc.retryinfo",
                   "retrydelay": "%s"}]}}""".formatted(delay);
    }

    @Test
    void googleRetryInfoDelayFormsAreParsed_FC3() {
        assertThat(RetryHints.fromBodyJson(retryInfo("33s"), NOW)).contains(google(33_000));
        assertThat(RetryHints.fromBodyJson(retryInfo("26.66s"), NOW)).contains(google(26_660));
        assertThat(RetryHints.fromBodyJson(retryInfo("1500ms"), NOW)).contains(google(1_500));
        assertThat(RetryHints.fromBodyJson(retryInfo("2m"), NOW)).contains(google(120_000));
        assertThat(RetryHints.fromBodyJson(retryInfo("1h"), NOW)).contains(google(3_600_000));
        assertThat(RetryHints.fromBodyJson(retryInfo("33"), NOW)).contains(google(33_000));
    }

    @Test
    void googleRetryInfoIsCappedAt24Hours_CC2() {
        assertThat(RetryHints.fromBodyJson(retryInfo("86399s"), NOW)).contains(google(86_399_000));
        assertThat(RetryHints.fromBodyJson(retryInfo("100000s"), NOW)).contains(google(86_400_000));
    }

    @Test
    void aRetryDelayOutsideARetryInfoDetailIsNotGoogles_FC3() {
        assertThat(RetryHints.fromBodyJson("{\"retrydelay\":\"33s\"}", NOW)).isEmpty();
        assertThat(RetryHints.fromBodyJson(retryInfo("soon"), NOW)).isEmpty();
    }

    @Test
    void retryAfterIsoFieldIsAnAnnouncedReset_FC3() {
        assertThat(RetryHints.fromBodyJson("{\"error\":{\"retryafter\":\"2026-01-01t00:01:00z\"}}", NOW))
                .contains(new Hint(60_000, HintSource.BODY_JSON, true));
        assertThat(RetryHints.fromBodyJson("{\"retryafter\":\"2025-12-31t00:00:00z\"}", NOW))
                .contains(new Hint(0, HintSource.BODY_JSON, true));
        assertThat(RetryHints.fromBodyJson("{\"retryafter\":\"2026-06-01t00:00:00z\"}", NOW))
                .contains(new Hint(2_592_000_000L, HintSource.BODY_JSON, true));
        assertThat(RetryHints.fromBodyJson("{\"retryafter\":\"tomorrow\"}", NOW)).isEmpty();
    }

    @Test
    void retryAfterMsFieldsAreMilliseconds_FC3() {
        assertThat(RetryHints.fromBodyJson("{\"retry_after_ms\":1500}", NOW)).contains(new Hint(1_500, HintSource.BODY_JSON, false));
        assertThat(RetryHints.fromBodyJson("{\"retryafterms\": \"250\"}", NOW)).contains(new Hint(250, HintSource.BODY_JSON, false));
        assertThat(RetryHints.fromBodyJson("{\"retry_after_ms\":999999999999}", NOW))
                .contains(new Hint(86_400_000, HintSource.BODY_JSON, false));
    }

    @Test
    void retryAfterFieldIsSeconds_FC3() {
        assertThat(RetryHints.fromBodyJson("{\"error\":\"rate limited\",\"retry_after\":5}", NOW))
                .contains(new Hint(5_000, HintSource.BODY_JSON, false));
        assertThat(RetryHints.fromBodyJson("{\"retry_after\": 0.5}", NOW)).contains(new Hint(500, HintSource.BODY_JSON, false));
    }

    @Test
    void codexAndEchoedHeaderResetsAreAnnouncedResets_FC3() {
        assertThat(RetryHints.fromBodyJson("{\"error\":{\"type\":\"usage_limit_reached\",\"resets_in_seconds\":9000}}", NOW))
                .contains(new Hint(9_000_000, HintSource.BODY_JSON, true));
        assertThat(RetryHints.fromBodyJson("{\"resets_at\":" + (NOW / 1000 + 600) + "}", NOW))
                .contains(new Hint(600_000, HintSource.BODY_JSON, true));
        assertThat(RetryHints.fromBodyJson("{\"metadata\":{\"headers\":{\"x-ratelimit-reset\":\"" + (NOW + 90_000) + "\"}}}", NOW))
                .contains(new Hint(90_000, HintSource.BODY_JSON, true));
    }

    @Test
    void jsonFieldsComeInTheirOrder_FC3() {
        assertThat(RetryHints.fromBodyJson("{\"retry_after\":9,\"retry_after_ms\":1000}", NOW))
                .contains(new Hint(1_000, HintSource.BODY_JSON, false));
    }

    @Test
    void bodiesWithoutJsonHintsGiveNone_FC3() {
        assertThat(RetryHints.fromBodyJson("", NOW)).isEmpty();
        assertThat(RetryHints.fromBodyJson(null, NOW)).isEmpty();
        assertThat(RetryHints.fromBodyJson("retry after 5s", NOW)).isEmpty();
        assertThat(RetryHints.fromBodyJson("{\"error\":{\"message\":\"rate limited\"}}", NOW)).isEmpty();
    }

    // ------------------------------------------------------------------ body text

    private static Hint retryIn(long ms) {
        return new Hint(ms, HintSource.BODY_TEXT, false);
    }

    private static Hint reset(long ms) {
        return new Hint(ms, HintSource.BODY_TEXT, true);
    }

    @Test
    void retryInTextFormsAreParsed_FC3() {
        assertThat(RetryHints.fromBodyText("rate limited. retry after 17s", NOW)).contains(retryIn(17_000));
        assertThat(RetryHints.fromBodyText("please retry in 2.5s.", NOW)).contains(retryIn(2_500));
        assertThat(RetryHints.fromBodyText("please retry in 38.922534355123s.", NOW)).contains(retryIn(38_923));
        assertThat(RetryHints.fromBodyText("please try again in 2m30s.", NOW)).contains(retryIn(150_000));
        assertThat(RetryHints.fromBodyText("please try again in 20ms.", NOW)).contains(retryIn(20));
        assertThat(RetryHints.fromBodyText("try again in 2 minutes and 30 seconds", NOW)).contains(retryIn(150_000));
        assertThat(RetryHints.fromBodyText("please wait 30 seconds before retrying", NOW)).contains(retryIn(30_000));
        assertThat(RetryHints.fromBodyText("try again in 1h2m3s", NOW)).contains(retryIn(3_723_000));
    }

    @Test
    void retryInTextIsCappedAt24Hours_CC2() {
        assertThat(RetryHints.fromBodyText("please retry in 48h", NOW)).contains(retryIn(86_400_000));
        assertThat(RetryHints.fromBodyText("try again in 3 days", NOW)).contains(retryIn(86_400_000));
    }

    @Test
    void resetAtIsoTimeIsAnAnnouncedReset_FC3() {
        assertThat(RetryHints.fromBodyText("your quota resets at 2026-01-01t02:00:00z.", NOW)).contains(reset(7_200_000));
        assertThat(RetryHints.fromBodyText("try again at 2026-01-01 00:10:00 utc", NOW)).contains(reset(600_000));
        assertThat(RetryHints.fromBodyText("available at 2026-01-01t08:00:00+08:00", NOW)).contains(reset(0));
        assertThat(RetryHints.fromBodyText("wait until 2026-01-01t01:00:00+0100 please", NOW)).contains(reset(0));
        assertThat(RetryHints.fromBodyText("retry after 2026-01-01t00:00:45.500z", NOW)).contains(reset(45_500));
    }

    @Test
    void resetTimesWithoutAZoneAreIgnored_FC3() {
        assertThat(RetryHints.fromBodyText("your limit will reset at 2026-01-01 02:00:00", NOW)).isEmpty();
    }

    @Test
    void resetDurationTextIsAnAnnouncedReset_FC3() {
        assertThat(RetryHints.fromBodyText("your quota will reset after 2h13m5s.", NOW)).contains(reset(7_985_000));
        assertThat(RetryHints.fromBodyText("quota resets after 45m", NOW)).contains(reset(2_700_000));
        assertThat(RetryHints.fromBodyText("limit resets in 3 days.", NOW)).contains(reset(259_200_000));
        assertThat(RetryHints.fromBodyText("resets in 164h27m24s.", NOW)).contains(reset(592_044_000));
    }

    @Test
    void announcedResetsAreCappedAtThirtyDays_CC2_BO5() {
        assertThat(RetryHints.fromBodyText("your limit resets in 45 days", NOW)).contains(reset(2_592_000_000L));
        assertThat(RetryHints.fromBodyText("resets at 2027-01-01t00:00:00z", NOW)).contains(reset(2_592_000_000L));
    }

    @Test
    void chineseResetTimeIsBeijingTime_FC3() {
        assertThat(RetryHints.fromBodyText("已达到 5 小时的使用上限。您的限额将在 2026-01-01 09:30:00 重置。", NOW))
                .contains(reset(5_400_000));
    }

    @Test
    void retryInFormsComeBeforeResets_FC3() {
        assertThat(RetryHints.fromBodyText("quota resets in 2 days; please retry in 5s", NOW)).contains(retryIn(5_000));
    }

    @Test
    void textWithoutAHintGivesNone_FC3() {
        assertThat(RetryHints.fromBodyText("", NOW)).isEmpty();
        assertThat(RetryHints.fromBodyText(null, NOW)).isEmpty();
        assertThat(RetryHints.fromBodyText("please try again later.", NOW)).isEmpty();
        assertThat(RetryHints.fromBodyText("retry after some time", NOW)).isEmpty();
        assertThat(RetryHints.fromBodyText("try again in 5 more minutes", NOW)).isEmpty();
    }

    // ------------------------------------------------------------------ order and robustness

    @Test
    void allSourcesComeInFc3Order_FC3() {
        String body = retryInfo("40s").replace("}]}}", "}],\"retry_after_ms\":1}}") + " please retry in 9s";
        assertThat(RetryHints.all(head("retry-after", "2"), new RetryHint(7_000, RetryHint.GOOGLE_RPC_RETRY_INFO), body, NOW))
                .containsExactly(new Hint(2_000, HintSource.HEADER, true), google(7_000), google(40_000), retryIn(9_000));
        assertThat(RetryHints.all(head(), null, "", NOW)).isEmpty();
    }

    @Test
    void bodyRetryWindowIsANonHeaderRetryInHint_FC2() {
        assertThat(google(1).bodyRetryWindow()).isTrue();
        assertThat(retryIn(1).bodyRetryWindow()).isTrue();
        assertThat(reset(1).bodyRetryWindow()).isFalse();
        assertThat(new Hint(1, HintSource.HEADER, true).bodyRetryWindow()).isFalse();
    }

    @Test
    void garbageAndHugeNumbersNeverThrow_FC3() {
        List<String> garbage = List.of("retry after 99999999999999999999999999999s", "please retry in 1e309s",
                "try again in 999999999d 999999999h 999999999m 999999999s", "resets in 999999999 days",
                "resets at 9999-99-99t99:99:99z", "resets at 2026-02-30t00:00:00z", "限额将在 2026-13-45 25:61:00 重置",
                "{\"retry_after_ms\":99999999999999999999}", "{\"retryafter\":\"-1\"}", "{\"resets_at\":999999999999999}",
                "\u0000\uFFFD\uD800", "retry in " + "1s, ".repeat(20_000), "\"".repeat(100_000));
        for (String g : garbage) {
            assertThatCode(() -> RetryHints.all(head("retry-after", g, "x-ratelimit-reset", g,
                    "anthropic-ratelimit-tokens-reset", g), new RetryHint(Long.MAX_VALUE, "x"), g, NOW))
                    .doesNotThrowAnyException();
        }
        assertThat(RetryHints.fromBodyText("try again in 999999999d", NOW)).contains(retryIn(86_400_000));
        assertThat(RetryHints.fromBodyText("resets in 999999999 days", NOW)).contains(reset(2_592_000_000L));
        assertThat(RetryHints.fromBodyText("resets at 2026-02-30t00:00:00z", NOW)).isEmpty();
    }

    @Test
    void capsHaveTheSpecsValues_CC2_SE3() {
        assertThat(RetryHints.MAX_RETRY_IN_MS).isEqualTo(86_400_000L);
        assertThat(RetryHints.MAX_RESET_MS).isEqualTo(2_592_000_000L);
    }
}
