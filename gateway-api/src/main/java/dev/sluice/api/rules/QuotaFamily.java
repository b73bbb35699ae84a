package dev.sluice.api.rules;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * A provider's quota-scoped model group (SPEC ML-1): models that draw on one quota on a
 * connection, so a quota or entitlement failure (429, 403, 402) of one of them locks them all on
 * that connection (e.g. every {@code gpt-5*} model of a codex-style account). Models outside any
 * family are locked alone.
 *
 * @param provider the provider id
 * @param name the family name (shown as the locked model in the admin API)
 * @param models model ids; an entry ending in {@code *} matches every model id starting with
 *     what precedes it (case-insensitive)
 */
public record QuotaFamily(String provider, String name, List<String> models) {

    /** Validates and copies. */
    public QuotaFamily {
        requireNonNull(provider, "provider is null");
        requireNonNull(name, "name is null");
        models = List.copyOf(models);
        if (name.isBlank()) {
            throw new IllegalArgumentException("quota family name is blank");
        }
        if (models.isEmpty()) {
            throw new IllegalArgumentException("quota family '" + name + "' lists no models");
        }
    }

    /**
     * Whether a model belongs to this family.
     *
     * @param model the upstream model id
     * @return true when one entry matches it
     */
    public boolean matches(String model) {
        for (String m : models) {
            if (m.endsWith("*") ? model.regionMatches(true, 0, m, 0, m.length() - 1) : model.equalsIgnoreCase(m)) {
                return true;
            }
        }
        return false;
    }
}
