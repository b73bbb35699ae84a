package dev.sluice.api.rules;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Set;

/**
 * Restates an upstream error status before classification (SPEC RS-2): when the status is one of
 * {@code fromStatuses}, the body contains one of {@code textMarkers} and none of
 * {@code excludeMarkers}, the error is treated as {@code toStatus} and the client is told
 * {@code Retry-After: defaultRetryAfterMs}.
 *
 * @param id stable rule id, unique per provider
 * @param provider the provider id the rule applies to
 * @param fromStatuses statuses the rule restates
 * @param toStatus the restated status (e.g. 429)
 * @param textMarkers body substrings that trigger the rule (at least one)
 * @param excludeMarkers body substrings that veto the rule (RS-4)
 * @param defaultRetryAfterMs the retry window announced to the client, in ms (≥ 0)
 */
public record RestatementRule(
        String id,
        String provider,
        Set<Integer> fromStatuses,
        int toStatus,
        List<String> textMarkers,
        List<String> excludeMarkers,
        long defaultRetryAfterMs) {

    /** Validates the fields and copies the collections. */
    public RestatementRule {
        requireNonNull(id, "id is null");
        requireNonNull(provider, "provider is null");
        fromStatuses = Set.copyOf(requireNonNull(fromStatuses, "fromStatuses is null"));
        textMarkers = List.copyOf(requireNonNull(textMarkers, "textMarkers is null"));
        excludeMarkers = excludeMarkers == null ? List.of() : List.copyOf(excludeMarkers);
        if (fromStatuses.isEmpty()) {
            throw new IllegalArgumentException("restatement rule " + id + ": fromStatuses is empty");
        }
        if (textMarkers.isEmpty()) {
            throw new IllegalArgumentException("restatement rule " + id + ": textMarkers is empty");
        }
        if (toStatus < 100 || toStatus > 599) {
            throw new IllegalArgumentException("restatement rule " + id + ": toStatus " + toStatus + " is not an HTTP status");
        }
        if (defaultRetryAfterMs < 0) {
            throw new IllegalArgumentException("restatement rule " + id + ": defaultRetryAfterMs is negative");
        }
    }
}
