package dev.sluice.runtime.routing;

import java.util.List;

/**
 * The model names a gateway key may ask for (issue 33): each entry is an exact name ({@code
 * openai/gpt-4o-mini}, an alias, a combo) or a prefix ending in {@code *} ({@code openai/*}); no
 * entry means every model. A request passes when the name the client sent, or the name its alias
 * stands for, matches an entry.
 *
 * @param patterns the entries, as the operator wrote them
 */
public record AllowedModels(List<String> patterns) {

    /** No restriction. */
    public static final AllowedModels ALL = new AllowedModels(List.of());

    /** Copies the entries. */
    public AllowedModels {
        patterns = List.copyOf(patterns);
    }

    /**
     * The restriction of a key's stored entries.
     *
     * @param patterns the entries (empty = all)
     * @return the restriction
     */
    public static AllowedModels of(List<String> patterns) {
        return patterns.isEmpty() ? ALL : new AllowedModels(patterns);
    }

    /** @return whether every model is allowed */
    public boolean all() {
        return patterns.isEmpty();
    }

    /**
     * Whether a model name is allowed; a handful of string comparisons, no allocation.
     *
     * @param model the name the client sent, or the one its alias stands for (null is refused unless all are allowed)
     * @return true when allowed
     */
    public boolean allows(String model) {
        if (patterns.isEmpty()) {
            return true;
        }
        if (model == null) {
            return false;
        }
        for (int i = 0; i < patterns.size(); i++) {
            String p = patterns.get(i);
            int last = p.length() - 1;
            if (last >= 0 && p.charAt(last) == '*' ? model.regionMatches(0, p, 0, last) : model.equals(p)) {
                return true;
            }
        }
        return false;
    }
}
