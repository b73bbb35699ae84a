package dev.sluice.plugin.claude;

import dev.sluice.api.upstream.ResponseHead;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * The unified rate-limit headers of an Anthropic subscription answer (SPEC §9; all prefixed
 * {@code anthropic-ratelimit-unified-}): the account's status ({@code rejected} is the usage
 * wall), when the window resets, the slow-lane offer and verdict, and the lane's retry pacing.
 *
 * @param status {@code -status}, or null
 * @param resetAtMs {@code -reset} as epoch ms, or -1
 * @param slowOffer {@code -slow-offer} ({@code treatment} = the lane is offered), or null
 * @param slowStatus {@code -slow-status} ({@code active}, {@code not_needed}, {@code slot_busy},
 *     {@code weekly_limit}, {@code budget_exhausted}, {@code ineligible}, {@code off}), or null
 * @param slowRetryAfterMs {@code -slow-retry-after} in ms, or -1
 * @param slowMaxWaitMs {@code -slow-max-wait} in ms, or -1
 * @param overageInUse {@code -overage-in-use} is true
 * @param slowBudgetResetMs {@code -slow-budget-reset} as epoch ms, or -1
 */
record UnifiedLimits(String status, long resetAtMs, String slowOffer, String slowStatus, long slowRetryAfterMs, long slowMaxWaitMs,
        boolean overageInUse, long slowBudgetResetMs) {

    static final String PREFIX = "anthropic-ratelimit-unified-";

    static UnifiedLimits of(ResponseHead head) {
        return new UnifiedLimits(text(head, "status"), instant(text(head, "reset")), text(head, "slow-offer"), text(head, "slow-status"),
                seconds(text(head, "slow-retry-after")), seconds(text(head, "slow-max-wait")),
                "true".equalsIgnoreCase(text(head, "overage-in-use")), instant(text(head, "slow-budget-reset")));
    }

    /** CL-1: the usage wall — a 429 whose unified status is {@code rejected}. */
    boolean wall(int httpStatus) {
        return httpStatus == 429 && "rejected".equalsIgnoreCase(status);
    }

    private static String text(ResponseHead head, String name) {
        return head.first(PREFIX + name).map(String::strip).filter(v -> !v.isEmpty()).orElse(null);
    }

    /** Epoch seconds (as Anthropic sends them) or an ISO-8601 instant, as epoch ms; -1 when absent or unreadable. */
    static long instant(String v) {
        if (v == null) {
            return -1;
        }
        try {
            return (long) (Double.parseDouble(v) * 1000);
        } catch (NumberFormatException e) {
            try {
                return Instant.parse(v).toEpochMilli();
            } catch (DateTimeParseException e2) {
                return -1;
            }
        }
    }

    /** Seconds as ms; -1 when absent or unreadable. */
    static long seconds(String v) {
        if (v == null) {
            return -1;
        }
        try {
            double s = Double.parseDouble(v);
            return s < 0 ? -1 : (long) (s * 1000);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
