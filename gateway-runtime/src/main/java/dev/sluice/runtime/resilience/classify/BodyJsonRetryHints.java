package dev.sluice.runtime.resilience.classify;

import dev.sluice.runtime.resilience.classify.RetryHints.Hint;
import dev.sluice.runtime.resilience.classify.Verdict.HintSource;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Retry hints in the JSON fields of an error body (SPEC FC-3, third and fourth steps). The body is
 * not parsed as JSON: the fields are found by their names in the lower-cased text, with every gap
 * bounded so that a large body cannot make a match slow.
 */
final class BodyJsonRetryHints {

    private static final Pattern GOOGLE_RETRY_INFO =
            Pattern.compile("(?s)google\\.rpc\\.retryinfo\".{0,200}?\"retrydelay\"\\s{0,8}:\\s{0,8}\"([^\"]{1,40})\"");
    private static final Pattern JSON_RETRY_AFTER_ISO = Pattern.compile("\"retryafter\"\\s{0,8}:\\s{0,8}\"([^\"]{1,64})\"");
    private static final Pattern JSON_RETRY_AFTER_MS =
            Pattern.compile("\"(?:retry_after_ms|retryafterms)\"\\s{0,8}:\\s{0,8}\"?(\\d{1,15}(?:\\.\\d{1,9})?)");
    private static final Pattern JSON_RETRY_AFTER_S =
            Pattern.compile("\"retry_after\"\\s{0,8}:\\s{0,8}\"?(\\d{1,15}(?:\\.\\d{1,9})?)");
    private static final Pattern JSON_RESETS_IN_S = Pattern.compile("\"resets_in_seconds\"\\s{0,8}:\\s{0,8}\"?(\\d{1,15})");
    private static final Pattern JSON_RESETS_AT = Pattern.compile("\"resets_at\"\\s{0,8}:\\s{0,8}\"?(\\d{1,15})");
    private static final Pattern JSON_EMBEDDED_RESET_HEADER =
            Pattern.compile("\"x-ratelimit-reset\"\\s{0,8}:\\s{0,8}\"?(\\d{1,15})");

    private BodyJsonRetryHints() {
    }

    /** See {@link RetryHints#fromBodyJson}. */
    static Optional<Hint> of(String lowerText, long nowMillis) {
        if (lowerText == null || lowerText.indexOf('"') < 0) {
            return Optional.empty();
        }
        if (!lowerText.contains("retry") && !lowerText.contains("reset")) {
            // every field below names a retry or a reset: skip the regex engine on plain bodies
            return Optional.empty();
        }
        Matcher m = GOOGLE_RETRY_INFO.matcher(lowerText);
        if (m.find()) {
            Optional<Long> d = HintTimes.parseDuration(m.group(1));
            if (d.isPresent()) {
                return Optional.of(new Hint(Math.min(d.get(), RetryHints.MAX_RETRY_IN_MS), HintSource.GOOGLE_RPC_RETRY_INFO, false));
            }
        }
        m = JSON_RETRY_AFTER_ISO.matcher(lowerText);
        if (m.find()) {
            Optional<Long> at = HintTimes.parseIsoInstant(m.group(1), null);
            if (at.isPresent()) {
                return Optional.of(RetryHints.reset(at.get() - nowMillis, HintSource.BODY_JSON));
            }
        }
        m = JSON_RETRY_AFTER_MS.matcher(lowerText);
        if (m.find()) {
            return Optional.of(RetryHints.retryIn(Double.parseDouble(m.group(1)), HintSource.BODY_JSON));
        }
        m = JSON_RETRY_AFTER_S.matcher(lowerText);
        if (m.find()) {
            return Optional.of(RetryHints.retryIn(Double.parseDouble(m.group(1)) * 1000d, HintSource.BODY_JSON));
        }
        m = JSON_RESETS_IN_S.matcher(lowerText);
        if (m.find()) {
            return Optional.of(RetryHints.reset((long) Math.min(Double.parseDouble(m.group(1)) * 1000d, RetryHints.MAX_RESET_MS),
                    HintSource.BODY_JSON));
        }
        for (Pattern p : new Pattern[] {JSON_RESETS_AT, JSON_EMBEDDED_RESET_HEADER}) {
            m = p.matcher(lowerText);
            if (m.find()) {
                Optional<Long> until = HintTimes.parseEpochReset(m.group(1), nowMillis);
                if (until.isPresent()) {
                    return Optional.of(RetryHints.reset(until.get(), HintSource.BODY_JSON));
                }
            }
        }
        return Optional.empty();
    }
}
