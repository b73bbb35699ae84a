package dev.sluice.runtime.resilience.gate;

import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.runtime.resilience.classify.RetryHints;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What upstreams announce about a connection's quota in their rate-limit headers (SPEC OF-4):
 * the share left and when it resets, read from every successful answer, for the quota-driven
 * combo strategies ({@code reset-aware}, {@code headroom}, {@code quota-weighted}). In memory; an
 * observation older than {@link #MAX_AGE_MS} is forgotten.
 *
 * <p>Headers read: {@code x-ratelimit-remaining-requests|tokens} over
 * {@code x-ratelimit-limit-requests|tokens} (OpenAI style), {@code
 * anthropic-ratelimit-requests|tokens|input-tokens|output-tokens-remaining} over their
 * {@code -limit}; resets from {@code x-ratelimit-reset-requests|tokens} (durations),
 * {@code x-ratelimit-reset} (epoch) and {@code anthropic-ratelimit-*-reset} (RFC 3339). The share
 * is the smallest of the announced ones; the reset the earliest.
 *
 * <p>Subscription accounts also announce their quota <em>windows</em> (issue 34, for
 * {@code reset-window}): Claude's {@code anthropic-ratelimit-unified-5h-reset} and
 * {@code -7d-reset} (epoch seconds), Codex's {@code x-codex-primary|secondary-window-minutes} with
 * {@code -reset-after-seconds} or {@code -reset-at}. Of the windows announced, the longest one's
 * end is kept (a weekly window before a 5-hour one): quota in it that is not spent by then is lost.
 */
public final class QuotaObservations {

    /** Observations older than this are forgotten (a day). */
    public static final long MAX_AGE_MS = 86_400_000L;

    private static final String[] KINDS = {"requests", "tokens", "input-tokens", "output-tokens"};

    private final InstantSource clock;
    private final ConcurrentHashMap<String, Quota> byConnection = new ConcurrentHashMap<>();

    /**
     * Creates the store.
     *
     * @param clock the clock
     */
    public QuotaObservations(InstantSource clock) {
        this.clock = clock;
    }

    /**
     * A connection's last announced quota.
     *
     * @param remaining the share left, 0–1, or null when not announced
     * @param resetAt when it resets, epoch ms, or null when not announced
     * @param observedAt when it was announced, epoch ms
     * @param windowResetAt when the longest announced quota window ends, epoch ms, or null
     * @param windowMs that window's length, ms, or null
     */
    public record Quota(Double remaining, Long resetAt, long observedAt, Long windowResetAt, Long windowMs) {
        /**
         * A quota without a window.
         *
         * @param remaining the share left, or null
         * @param resetAt when it resets, or null
         * @param observedAt when it was announced
         */
        public Quota(Double remaining, Long resetAt, long observedAt) {
            this(remaining, resetAt, observedAt, null, null);
        }
    }

    /** Claude's unified subscription windows: header infix and length. */
    private static final String[][] UNIFIED_WINDOWS = {{"7d", Long.toString(7L * 24 * 3_600_000)}, {"5h", Long.toString(5L * 3_600_000)}};
    /** Codex's two announced windows. */
    private static final String[] CODEX_WINDOWS = {"primary", "secondary"};

    /**
     * Reads a successful answer's rate-limit headers.
     *
     * @param connectionId the connection that answered
     * @param head the answer's head
     */
    public void record(String connectionId, ResponseHead head) {
        if (!announcesLimits(head)) {
            return;
        }
        long now = clock.millis();
        Double share = null;
        Long reset = null;
        for (String kind : KINDS) {
            share = min(share, ratio(head, "x-ratelimit-remaining-" + kind, "x-ratelimit-limit-" + kind));
            share = min(share, ratio(head, "anthropic-ratelimit-" + kind + "-remaining", "anthropic-ratelimit-" + kind + "-limit"));
            reset = earliest(reset, head.first("x-ratelimit-reset-" + kind).flatMap(RetryHints::parseDuration).map(ms -> now + ms));
            reset = earliest(reset, head.first("anthropic-ratelimit-" + kind + "-reset")
                    .flatMap(v -> RetryHints.parseResetTime(v, now)).map(ms -> now + ms));
        }
        reset = earliest(reset, head.first("x-ratelimit-reset").flatMap(v -> RetryHints.parseEpochReset(v, now)).map(ms -> now + ms));
        long[] window = longestWindow(head, now);
        if (share != null || reset != null || window != null) {
            byConnection.put(connectionId, new Quota(share, reset, now, window == null ? null : window[0], window == null ? null : window[1]));
        }
    }

    /** The end and length of the longest quota window an answer announces, or null. */
    static long[] longestWindow(ResponseHead head, long now) {
        long[] best = null;
        for (String[] w : UNIFIED_WINDOWS) {
            Optional<Long> in = head.first("anthropic-ratelimit-unified-" + w[0] + "-reset").flatMap(v -> RetryHints.parseEpochReset(v, now));
            if (in.isPresent()) {
                best = longer(best, now + in.get(), Long.parseLong(w[1]));
            }
        }
        for (String w : CODEX_WINDOWS) {
            Optional<Double> minutes = head.first("x-codex-" + w + "-window-minutes").flatMap(QuotaObservations::number);
            if (minutes.isEmpty() || minutes.get() <= 0) {
                continue;
            }
            Optional<Long> in = head.first("x-codex-" + w + "-reset-after-seconds").flatMap(QuotaObservations::number)
                    .map(sec -> (long) Math.ceil(Math.max(0, sec) * 1000));
            if (in.isEmpty()) {
                in = head.first("x-codex-" + w + "-reset-at").flatMap(v -> RetryHints.parseEpochReset(v, now));
            }
            if (in.isPresent()) {
                best = longer(best, now + in.get(), (long) (minutes.get() * 60_000));
            }
        }
        return best;
    }

    private static long[] longer(long[] best, long endsAt, long lengthMs) {
        return best == null || lengthMs > best[1] ? new long[] {endsAt, lengthMs} : best;
    }

    /**
     * Whether an answer carries any rate-limit header at all: one pass over its header names, so
     * that the many lookups of {@link #record} are spent only on answers that announce something
     * (most answers of most upstreams announce nothing).
     *
     * @param head the answer's head, or null
     * @return true when a header name starts with {@code x-ratelimit}, {@code anthropic-ratelimit} or {@code x-codex-}
     */
    static boolean announcesLimits(ResponseHead head) {
        if (head == null) {
            return false;
        }
        for (String name : head.headers().keySet()) {
            if (name.startsWith("x-ratelimit") || name.startsWith("anthropic-ratelimit") || name.startsWith("x-codex-")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A connection's last announced quota, if recent.
     *
     * @param connectionId the connection
     * @return the quota, or null when none was announced in the last day
     */
    public Quota of(String connectionId) {
        Quota q = byConnection.get(connectionId);
        if (q != null && clock.millis() - q.observedAt() > MAX_AGE_MS) {
            byConnection.remove(connectionId, q);
            return null;
        }
        return q;
    }

    private static Double ratio(ResponseHead head, String remaining, String limit) {
        Optional<Double> r = head.first(remaining).flatMap(QuotaObservations::number);
        Optional<Double> l = head.first(limit).flatMap(QuotaObservations::number);
        if (r.isEmpty() || l.isEmpty() || l.get() <= 0) {
            return null;
        }
        return Math.max(0, Math.min(1, r.get() / l.get()));
    }

    private static Optional<Double> number(String v) {
        try {
            double d = Double.parseDouble(v.strip());
            return Double.isFinite(d) ? Optional.of(d) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static Double min(Double a, Double b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return Math.min(a, b);
    }

    private static Long earliest(Long a, Optional<Long> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a == null) {
            return b.get();
        }
        return Math.min(a, b.get());
    }
}
