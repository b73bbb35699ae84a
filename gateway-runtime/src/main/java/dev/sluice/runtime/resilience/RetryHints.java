package dev.sluice.runtime.resilience;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.RetryHint;
import dev.sluice.runtime.resilience.Verdict.HintSource;
import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads upstream retry hints (SPEC FC-3): response headers, a structured hint the executor read
 * ({@link RetryHint}), JSON fields of the body and natural-language body text. Every hint is
 * capped (CC-2): "retry in"-style durations at {@link #MAX_RETRY_IN_MS}, announced resets and
 * header values at {@link #MAX_RESET_MS}. Unparseable hints are ignored, never an error: no method
 * here throws on any input, however malformed or large.
 */
public final class RetryHints {

    /** Cap of "retry in"-style hints: Google {@code RetryInfo}, "retry after 17s", {@code retry_after_ms} (24 h). */
    public static final long MAX_RETRY_IN_MS = 86_400_000L;
    /** Cap of announced resets ("resets at …", "resets in 3 days") and of header hints (30 days, BO-5). */
    public static final long MAX_RESET_MS = 2_592_000_000L;

    /**
     * A hint found in a failure.
     *
     * @param ms how long to wait, already capped, ≥ 0
     * @param source where it came from
     * @param announcedReset whether the upstream announced when a limit resets (a reset time,
     *     "resets in …", a header) rather than saying how long to back off ("retry in 17s");
     *     only a "retry in" window of the body can make a quota-worded 429 a rate limit (FC-2)
     */
    public record Hint(long ms, HintSource source, boolean announcedReset) {

        /** Validates. */
        public Hint {
            Objects.requireNonNull(source, "source is null");
            if (ms < 0) {
                throw new IllegalArgumentException("ms is negative");
            }
        }

        /**
         * @return whether this is a back-off window declared in the body (not a header, not an
         *     announced reset)
         */
        public boolean bodyRetryWindow() {
            return source != HintSource.HEADER && !announcedReset;
        }
    }

    private static final Pattern DECIMAL = Pattern.compile("\\d{1,15}(?:\\.\\d{1,9})?");
    /** Values of {@code x-ratelimit-reset} above this are epoch milliseconds, else epoch seconds. */
    private static final long EPOCH_MILLIS_THRESHOLD = 10_000_000_000L;
    /**
     * Values of {@code x-ratelimit-reset} below this (2001-09-09 in epoch seconds) cannot be an
     * epoch and are read as seconds from now (Sluice; some gateways send a delta).
     */
    private static final long EPOCH_SECONDS_FLOOR = 1_000_000_000L;
    private static final Pattern GO_DURATION =
            Pattern.compile("(?:(\\d{1,9})h)?(?:(\\d{1,9})m(?!s))?(?:(\\d{1,9}(?:\\.\\d{1,9})?)s)?(?:(\\d{1,9})ms)?");
    private static final Pattern ANTHROPIC_RESET = Pattern.compile("anthropic-ratelimit-(.{1,60})-reset");

    // ------------------------------------------------------------------ body JSON (lower-cased text)

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

    // ------------------------------------------------------------------ body text (lower-cased text)

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
    private static final Pattern TEXT_RESET_IN =
            Pattern.compile("\\bresets?\\s{1,4}(?:in|after)\\s{1,4}" + DURATION);
    private static final Pattern TEXT_CN_RESET_AT =
            Pattern.compile("限额将在\\s{0,4}(\\d{4}-\\d{2}-\\d{2}[ t]\\d{2}:\\d{2}(?::\\d{2})?)\\s{0,4}重置");
    /** GLM's Chinese reset times carry no zone: they are Beijing time. */
    private static final ZoneOffset CHINA = ZoneOffset.ofHours(8);

    private RetryHints() {
    }

    // ------------------------------------------------------------------ all sources, in FC-3 order

    /**
     * Every hint of a failure, in FC-3 order (at most one per step): headers, the executor's
     * structured hint, Google {@code RetryInfo} in the body, other JSON fields, body text. The
     * first is the one a verdict carries.
     *
     * @param head the response head
     * @param structured the executor's structured hint, or null
     * @param lowerText the lower-cased error text (body, code, type, message)
     * @param nowMillis the current time
     * @return the hints found, possibly empty
     */
    public static List<Hint> all(ResponseHead head, RetryHint structured, String lowerText, long nowMillis) {
        List<Hint> found = new ArrayList<>(4);
        headerHint(head, nowMillis).ifPresent(found::add);
        fromStructured(structured).ifPresent(found::add);
        fromBodyJson(lowerText, nowMillis).ifPresent(found::add);
        fromBodyText(lowerText, nowMillis).ifPresent(found::add);
        return found;
    }

    // ------------------------------------------------------------------ headers

    /**
     * The retry hint of a response's headers, in ms, capped at {@link #MAX_RESET_MS}.
     *
     * @param head the response head
     * @param nowMillis the current time (for dates)
     * @return the hint, or empty
     */
    public static Optional<Long> fromHeaders(ResponseHead head, long nowMillis) {
        return headerHint(head, nowMillis).map(Hint::ms);
    }

    /**
     * The header hint, in FC-3 order: {@code Retry-After} (seconds, HTTP date, or {@code 30s}
     * style), {@code x-ratelimit-reset-requests}, {@code x-ratelimit-reset-tokens} (durations),
     * {@code x-ratelimit-reset} (epoch seconds or ms), {@code anthropic-ratelimit-*-reset}
     * (RFC 3339 or epoch seconds). An unparseable header falls through to the next one.
     *
     * @param head the response head
     * @param nowMillis the current time
     * @return the hint, or empty
     */
    public static Optional<Hint> headerHint(ResponseHead head, long nowMillis) {
        if (head == null) {
            return Optional.empty();
        }
        Optional<Long> ms = head.first("retry-after").flatMap(v -> parseRetryAfter(v, nowMillis));
        for (String h : new String[] {"x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"}) {
            if (ms.isEmpty()) {
                ms = head.first(h).flatMap(RetryHints::parseDuration);
            }
        }
        if (ms.isEmpty()) {
            ms = head.first("x-ratelimit-reset").flatMap(v -> parseEpochReset(v, nowMillis));
        }
        if (ms.isEmpty()) {
            ms = anthropicReset(head, nowMillis);
        }
        return ms.map(v -> new Hint(Math.min(v, MAX_RESET_MS), HintSource.HEADER, true));
    }

    /**
     * Anthropic's reset headers: the unified (subscription) reset when present, else the latest
     * reset of a limit whose {@code -remaining} is 0, else the earliest reset.
     */
    private static Optional<Long> anthropicReset(ResponseHead head, long nowMillis) {
        Optional<Long> unified = head.first("anthropic-ratelimit-unified-reset").flatMap(v -> parseResetTime(v, nowMillis));
        if (unified.isPresent()) {
            return unified;
        }
        Long exhausted = null;
        Long earliest = null;
        for (Map.Entry<String, List<String>> e : head.headers().entrySet()) {
            Matcher m = ANTHROPIC_RESET.matcher(e.getKey());
            if (!m.matches() || e.getValue().isEmpty()) {
                continue;
            }
            Optional<Long> at = parseResetTime(e.getValue().get(0), nowMillis);
            if (at.isEmpty()) {
                continue;
            }
            long v = at.get();
            earliest = earliest == null ? v : Math.min(earliest, v);
            boolean spent = head.first("anthropic-ratelimit-" + m.group(1) + "-remaining").map(String::strip)
                    .filter("0"::equals).isPresent();
            if (spent) {
                exhausted = exhausted == null ? v : Math.max(exhausted, v);
            }
        }
        return Optional.ofNullable(exhausted != null ? exhausted : earliest);
    }

    /** An RFC 3339 time or epoch seconds/ms: ms from now until then (0 when past). */
    static Optional<Long> parseResetTime(String value, long nowMillis) {
        String v = value.strip();
        if (DECIMAL.matcher(v).matches()) {
            return parseEpochReset(v, nowMillis);
        }
        return parseIsoInstant(v, null).map(at -> Math.max(0, at - nowMillis));
    }

    /**
     * Parses an {@code x-ratelimit-reset} value: the epoch time of the reset, in seconds, or in
     * milliseconds when above 1e10; a value below 1e9 cannot be a current epoch and is read as
     * seconds from now.
     *
     * @param value the header value
     * @param nowMillis the current time
     * @return ms until the reset (0 when past), or empty when unparseable
     */
    public static Optional<Long> parseEpochReset(String value, long nowMillis) {
        String v = value.strip();
        if (!DECIMAL.matcher(v).matches()) {
            return Optional.empty();
        }
        double n = Double.parseDouble(v);
        if (n < EPOCH_SECONDS_FLOOR) {
            return Optional.of((long) Math.ceil(n * 1000));
        }
        long at = n > EPOCH_MILLIS_THRESHOLD ? (long) n : (long) (n * 1000);
        return Optional.of(Math.max(0, at - nowMillis));
    }

    /**
     * Parses a {@code Retry-After} value: seconds, an HTTP date, or a {@code 30s}/{@code 5m}/
     * {@code 1h} duration (checked after plain seconds, so {@code 5m} is 300 s, not 5 s).
     *
     * @param value the value
     * @param nowMillis the current time
     * @return ms to wait, or empty when unparseable
     */
    public static Optional<Long> parseRetryAfter(String value, long nowMillis) {
        String v = value.strip();
        if (DECIMAL.matcher(v).matches()) {
            return Optional.of((long) Math.ceil(Double.parseDouble(v) * 1000));
        }
        try {
            long at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
            return Optional.of(Math.max(0, at - nowMillis));
        } catch (DateTimeException notADate) {
            return parseDuration(v);
        }
    }

    /**
     * Parses a Go-style duration ({@code 1h2m3.5s}, {@code 20ms}) or plain seconds.
     *
     * @param value the value
     * @return ms, or empty
     */
    public static Optional<Long> parseDuration(String value) {
        String v = value.strip();
        if (v.isEmpty()) {
            return Optional.empty();
        }
        if (DECIMAL.matcher(v).matches()) {
            return Optional.of((long) Math.ceil(Double.parseDouble(v) * 1000));
        }
        Matcher m = GO_DURATION.matcher(v);
        if (!m.matches() || (m.group(1) == null && m.group(2) == null && m.group(3) == null && m.group(4) == null)) {
            return Optional.empty();
        }
        double ms = 0;
        if (m.group(1) != null) {
            ms += Long.parseLong(m.group(1)) * 3_600_000d;
        }
        if (m.group(2) != null) {
            ms += Long.parseLong(m.group(2)) * 60_000d;
        }
        if (m.group(3) != null) {
            ms += Double.parseDouble(m.group(3)) * 1000d;
        }
        if (m.group(4) != null) {
            ms += Long.parseLong(m.group(4));
        }
        return Optional.of((long) Math.ceil(ms));
    }

    // ------------------------------------------------------------------ structured (executor)

    /**
     * The executor's structured hint: {@code google_rpc_retry_info} keeps its source, anything
     * else is body text. Capped at {@link #MAX_RETRY_IN_MS}.
     *
     * @param hint the hint, or null
     * @return the hint, or empty
     */
    public static Optional<Hint> fromStructured(RetryHint hint) {
        if (hint == null) {
            return Optional.empty();
        }
        HintSource source = RetryHint.GOOGLE_RPC_RETRY_INFO.equals(hint.source())
                ? HintSource.GOOGLE_RPC_RETRY_INFO : HintSource.BODY_TEXT;
        return Optional.of(new Hint(Math.min(hint.delayMs(), MAX_RETRY_IN_MS), source, false));
    }

    // ------------------------------------------------------------------ body JSON

    /**
     * A hint in the JSON fields of a body, in order: a {@code google.rpc.RetryInfo}
     * {@code retryDelay} (source {@code GOOGLE_RPC_RETRY_INFO}, cap 24 h); then (source
     * {@code BODY_JSON}) {@code retryAfter} (an ISO time, cap 30 days), {@code retry_after_ms} /
     * {@code retryAfterMs} (ms, 24 h), {@code retry_after} (seconds, 24 h), and — Sluice —
     * Codex's {@code resets_in_seconds} / {@code resets_at} (epoch) and an {@code x-ratelimit-reset}
     * header echoed in the body (OpenRouter's {@code metadata.headers}), all announced resets
     * (30 days). The body is not parsed as JSON: the fields are found by their names.
     *
     * @param lowerText the lower-cased error text
     * @param nowMillis the current time
     * @return the hint, or empty
     */
    public static Optional<Hint> fromBodyJson(String lowerText, long nowMillis) {
        if (lowerText == null || lowerText.indexOf('"') < 0) {
            return Optional.empty();
        }
        if (!lowerText.contains("retry") && !lowerText.contains("reset")) {
            // every field below names a retry or a reset: skip the regex engine on plain bodies
            return Optional.empty();
        }
        Matcher m = GOOGLE_RETRY_INFO.matcher(lowerText);
        if (m.find()) {
            Optional<Long> d = parseDuration(m.group(1));
            if (d.isPresent()) {
                return Optional.of(new Hint(Math.min(d.get(), MAX_RETRY_IN_MS), HintSource.GOOGLE_RPC_RETRY_INFO, false));
            }
        }
        m = JSON_RETRY_AFTER_ISO.matcher(lowerText);
        if (m.find()) {
            Optional<Long> at = parseIsoInstant(m.group(1), null);
            if (at.isPresent()) {
                return Optional.of(reset(at.get() - nowMillis, HintSource.BODY_JSON));
            }
        }
        m = JSON_RETRY_AFTER_MS.matcher(lowerText);
        if (m.find()) {
            return Optional.of(retryIn(Double.parseDouble(m.group(1)), HintSource.BODY_JSON));
        }
        m = JSON_RETRY_AFTER_S.matcher(lowerText);
        if (m.find()) {
            return Optional.of(retryIn(Double.parseDouble(m.group(1)) * 1000d, HintSource.BODY_JSON));
        }
        m = JSON_RESETS_IN_S.matcher(lowerText);
        if (m.find()) {
            return Optional.of(reset((long) Math.min(Double.parseDouble(m.group(1)) * 1000d, MAX_RESET_MS), HintSource.BODY_JSON));
        }
        for (Pattern p : new Pattern[] {JSON_RESETS_AT, JSON_EMBEDDED_RESET_HEADER}) {
            m = p.matcher(lowerText);
            if (m.find()) {
                Optional<Long> until = parseEpochReset(m.group(1), nowMillis);
                if (until.isPresent()) {
                    return Optional.of(reset(until.get(), HintSource.BODY_JSON));
                }
            }
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------ body text

    /**
     * A hint in the natural-language text of a body, in order: "retry in|after 17s", "try again
     * in 2m30s", "wait 30 seconds" (cap 24 h); then announced resets (cap 30 days): an ISO time
     * with a zone after "resets at|try again at|wait until|available at|retry after", "reset(s)
     * after|in 1h2m3s", "resets in 3 days", and GLM's {@code 限额将在 <Beijing time> 重置}.
     *
     * @param lowerText the lower-cased error text
     * @param nowMillis the current time
     * @return the hint, or empty
     */
    public static Optional<Hint> fromBodyText(String lowerText, long nowMillis) {
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
            return Optional.of(retryIn(durationMs(d), HintSource.BODY_TEXT));
        }
        m = RegexLiterals.anchored(TEXT_RESET_AT, lowerText);
        for (int at = RegexLiterals.findAt(m, lowerText, 0, RESET_AT_WORDS); at >= 0;
                at = RegexLiterals.findAt(m, lowerText, at + 1, RESET_AT_WORDS)) {
            Optional<Long> when = parseIsoInstant(m.group(1), null);
            if (when.isPresent()) {
                return Optional.of(reset(when.get() - nowMillis, HintSource.BODY_TEXT));
            }
        }
        m = RegexLiterals.anchored(TEXT_RESET_IN, lowerText);
        if (reset && RegexLiterals.findAt(m, lowerText, 0, "reset") >= 0) {
            return Optional.of(reset((long) Math.min(durationMs(m.group(1)), MAX_RESET_MS), HintSource.BODY_TEXT));
        }
        m = TEXT_CN_RESET_AT.matcher(lowerText);
        if (m.find()) {
            Optional<Long> at = parseIsoInstant(m.group(1), CHINA);
            if (at.isPresent()) {
                return Optional.of(reset(at.get() - nowMillis, HintSource.BODY_TEXT));
            }
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------ helpers

    /** The words a {@link #TEXT_RESET_AT} match starts with. */
    private static final String[] RESET_AT_WORDS = {"try again at", "wait until", "reset", "available at", "retry after"};


    private static Hint retryIn(double ms, HintSource source) {
        return new Hint((long) Math.ceil(Math.min(Math.max(0, ms), MAX_RETRY_IN_MS)), source, false);
    }

    private static Hint reset(long ms, HintSource source) {
        return new Hint(Math.min(Math.max(0, ms), MAX_RESET_MS), source, true);
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

    /**
     * Parses an ISO-8601 date-time such as {@code 2026-01-01T00:00:30Z}, {@code 2026-01-01
     * 00:00:30+0800} or {@code 2026-01-01 00:00 utc}, in any case; a time without a zone is read in
     * {@code zoneIfAbsent}, or refused when that is null.
     */
    private static Optional<Long> parseIsoInstant(String value, ZoneOffset zoneIfAbsent) {
        String v = value.strip().toUpperCase(Locale.ROOT).replaceFirst("\\s+(Z|UTC|[+-]\\d{2}:?\\d{2})$", "$1")
                .replace(' ', 'T');
        v = v.replaceFirst("UTC$", "Z").replaceFirst("([+-]\\d{2})(\\d{2})$", "$1:$2");
        try {
            if (zoneIfAbsent != null && !v.endsWith("Z") && !v.matches(".*[+-]\\d{2}:\\d{2}$")) {
                return Optional.of(LocalDateTime.parse(v).toInstant(zoneIfAbsent).toEpochMilli());
            }
            return Optional.of(OffsetDateTime.parse(v, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant().toEpochMilli());
        } catch (DateTimeException | ArithmeticException unparseable) {
            return Optional.empty();
        }
    }
}
