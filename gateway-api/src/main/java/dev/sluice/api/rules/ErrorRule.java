package dev.sluice.api.rules;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * A provider error-classification rule (SPEC ER-1): when an upstream error of {@code provider}
 * matches every given condition ({@code status}, {@code headers}, one of {@code textMarkers}),
 * the classifier uses {@code reason} and {@code scope}.
 *
 * @param id stable rule id, unique per provider
 * @param provider the provider id the rule applies to
 * @param status the status to match, or null for any
 * @param headers header name (lower case) to the value it must have, compared case-insensitively
 *     after trimming; {@code *} accepts any value, and a value starting with {@code ~} is a Java
 *     regular expression found anywhere in the header's value, case-insensitively (MiniMax's
 *     {@code x-model-quota-remaining: a=0,b=42} "any count is 0":
 *     {@code ~(^|,)\s*[^=,]+=\s*0+\s*(,|$)}); empty for none
 * @param textMarkers error-text substrings, one of which must appear; empty for none
 * @param reason the failure reason a match yields
 * @param scope what the failure locks
 * @param baseCooldownMs declared base cooldown in ms, or null to use the default escalation
 */
public record ErrorRule(
        String id,
        String provider,
        Integer status,
        Map<String, String> headers,
        List<String> textMarkers,
        FailureReason reason,
        LockScope scope,
        Long baseCooldownMs) {

    /** Validates the fields and copies the collections. */
    public ErrorRule {
        requireNonNull(id, "id is null");
        requireNonNull(provider, "provider is null");
        requireNonNull(reason, "reason is null");
        requireNonNull(scope, "scope is null");
        headers = headers == null ? Map.of() : Map.copyOf(headers);
        textMarkers = textMarkers == null ? List.of() : List.copyOf(textMarkers);
        if (status == null && headers.isEmpty() && textMarkers.isEmpty()) {
            throw new IllegalArgumentException("error rule " + id + " has no condition (status, headers or textMarkers)");
        }
        headers.forEach((name, value) -> {
            if (value == null) {
                throw new IllegalArgumentException("error rule " + id + ": header " + name + " has no value");
            }
            if (value.startsWith("~")) {
                try {
                    java.util.regex.Pattern.compile(value.substring(1));
                } catch (java.util.regex.PatternSyntaxException e) {
                    throw new IllegalArgumentException("error rule " + id + ": header " + name + " is not a valid regular expression: "
                            + e.getDescription());
                }
            }
        });
        if (baseCooldownMs != null && baseCooldownMs < 0) {
            throw new IllegalArgumentException("error rule " + id + ": baseCooldownMs is negative");
        }
    }
}
