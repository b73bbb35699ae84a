package dev.sluice.runtime.resilience.classify;

import dev.sluice.runtime.resilience.classify.RetryHints.Hint;
import dev.sluice.runtime.resilience.classify.Verdict.HintSource;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Retry hints in the natural-language text of an error body (SPEC FC-3, last step): "retry in
 * 17s", "resets at &lt;time&gt;", "resets in 3 days", GLM's Chinese reset time. Every form is
 * tried only where one of its leading words occurs, never at every position of a long body.
 */
final class BodyTextRetryHints {

    private static final String UNIT =
            "(?:ms|milliseconds?|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)(?![a-z])";
    private static final String DURATION =
            "((?:\\d{1,9}(?:\\.\\d{1,20})?\\s?" + UNIT + "(?:\\s{0,2},?\\s{0,2}(?:and\\s{1,2})?)?){1,4})";
    private static final Pattern DURATION_TOKEN = Pattern.compile("(\\d{1,9}(?:\\.\\d{1,20})?)\\s?(" + UNIT + ")");
    private static final Pattern TEXT_RETRY_IN = Pattern.compile(
            "(?:\\bretry|\\btry again)\\s{1,4}(?:in|after)\\s{1,4}" + DURATION + "|\\bwait\\s{1,4}(?:for\\s{1,4})?" + DURATION);
    private static final String ISO_TIME =
            "(\\d{4}-\\d{2}-\\d{2}[t ]\\d{2}:\\d{2}(?::\\d{2}(?:\\.\\d{1,9})?)?\\s?(?:z|utc|[+-]\\d{2}:?\\d{2}))";
    private static final Pattern TEXT_RESET_AT = Pattern.compile(
            "\\b(?:try again at|wait until|resets? at|available at|retry after|reset time:?)\\s{0,4}:?\\s{0,4}" + ISO_TIME);
    /** The words a {@link #TEXT_RESET_AT} match starts with. */
    private static final String[] RESET_AT_WORDS = {"try again at", "wait until", "reset", "available at", "retry after"};
    private static final Pattern TEXT_RESET_IN =
            Pattern.compile("\\bresets?\\s{1,4}(?:in|after)\\s{1,4}" + DURATION);
    private static final Pattern TEXT_CN_RESET_AT =
            Pattern.compile("限额将在\\s{0,4}(\\d{4}-\\d{2}-\\d{2}[ t]\\d{2}:\\d{2}(?::\\d{2})?)\\s{0,4}重置");
    /** GLM's Chinese reset times carry no zone: they are Beijing time. */
    private static final ZoneOffset CHINA = ZoneOffset.ofHours(8);

    private BodyTextRetryHints() {
    }

    /** See {@link RetryHints#fromBodyText}. */
    static Optional<Hint> of(String lowerText, long nowMillis) {
        if (lowerText == null || lowerText.isEmpty()) {
            return Optional.empty();
        }
        boolean retry = lowerText.contains("retry") || lowerText.contains("try again") || lowerText.contains("wait");
        boolean reset = lowerText.contains("reset") || lowerText.contains("available at");
        if (!retry && !reset && !lowerText.contains("限额将在")) {
            // every form below needs one of these words: skip the regex engine on plain bodies
            return Optional.empty();
        }
        // each form starts with one of a few words: try the pattern only where they occur
        // (lookingAt from each occurrence), not at every position of a long body
        Matcher m = RegexLiterals.anchored(TEXT_RETRY_IN, lowerText);
        if (retry && RegexLiterals.findAt(m, lowerText, 0, "retry", "try again", "wait") >= 0) {
            String d = m.group(1) != null ? m.group(1) : m.group(2);
            return Optional.of(RetryHints.retryIn(durationMs(d), HintSource.BODY_TEXT));
        }
        m = RegexLiterals.anchored(TEXT_RESET_AT, lowerText);
        for (int at = RegexLiterals.findAt(m, lowerText, 0, RESET_AT_WORDS); at >= 0;
                at = RegexLiterals.findAt(m, lowerText, at + 1, RESET_AT_WORDS)) {
            Optional<Long> when = HintTimes.parseIsoInstant(m.group(1), null);
            if (when.isPresent()) {
                return Optional.of(RetryHints.reset(when.get() - nowMillis, HintSource.BODY_TEXT));
            }
        }
        m = RegexLiterals.anchored(TEXT_RESET_IN, lowerText);
        if (reset && RegexLiterals.findAt(m, lowerText, 0, "reset") >= 0) {
            return Optional.of(RetryHints.reset((long) Math.min(durationMs(m.group(1)), RetryHints.MAX_RESET_MS), HintSource.BODY_TEXT));
        }
        m = TEXT_CN_RESET_AT.matcher(lowerText);
        if (m.find()) {
            Optional<Long> at = HintTimes.parseIsoInstant(m.group(1), CHINA);
            if (at.isPresent()) {
                return Optional.of(RetryHints.reset(at.get() - nowMillis, HintSource.BODY_TEXT));
            }
        }
        return Optional.empty();
    }

    /** The sum of "17s", "2m 30s", "1 hour and 5 minutes", "3 days" tokens, in ms. */
    private static double durationMs(String text) {
        double ms = 0;
        Matcher t = DURATION_TOKEN.matcher(text);
        while (t.find()) {
            double n = Double.parseDouble(t.group(1));
            String unit = t.group(2);
            if (unit.startsWith("ms") || unit.startsWith("milli")) {
                ms += n;
            } else if (unit.startsWith("s")) {
                ms += n * 1000d;
            } else if (unit.startsWith("m")) {
                ms += n * 60_000d;
            } else if (unit.startsWith("h")) {
                ms += n * 3_600_000d;
            } else {
                ms += n * 86_400_000d;
            }
        }
        return ms;
    }
}
