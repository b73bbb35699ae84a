package dev.sluice.runtime.resilience.classify;

import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.upstream.ResponseHead;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Provider error rules (SPEC §16.2, ER-1…ER-6): classification knowledge per provider,
 * contributed by plugins and declared by operators ({@code settings.providerErrorRules}),
 * consulted by the {@link FailureClassifier}.
 *
 * <ul>
 *   <li>Operator rules are checked before plugin rules; the first match wins.</li>
 *   <li>Issue 27: a plugin's rule with a text or header condition, for a provider that same plugin
 *       declares, is <em>authoritative</em>: the provider knows its own wire best, so the classifier
 *       lets it decide ahead of its built-in text patterns ({@link Match#authoritative()}). A
 *       status-only rule only refines the built-in verdict.</li>
 *   <li>ER-2: a plugin's rule sees the full error text only for providers that declare full-text
 *       matching (their descriptor); every other provider's plugin rules see only the structured
 *       {@code code} and {@code type}, so a provider that opted into nothing classifies exactly as
 *       without text rules. Operator rules always see the full text (ER-5).</li>
 *   <li>ER-3/ER-5: a plugin rule's scope is acted on only for providers that declare it (their
 *       descriptor); an operator rule's scope always is; elsewhere it is informational.</li>
 *   <li>A rule matches when every condition it has holds: {@code status} equal; each header
 *       present with the given value (case-insensitive; {@code *} = any value; {@code ~regex} = a
 *       regular expression found in the value); one of the {@code textMarkers} contained
 *       (case-insensitive substring, never a regex).</li>
 * </ul>
 */
public final class ErrorRules {

    /** Compiled {@code ~regex} header conditions, by their text (rules are few). */
    private static final Map<String, Pattern> PATTERNS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * One header condition: {@code *} any value, {@code ~regex} found case-insensitively, else the
     * value itself, case-insensitively.
     */
    static boolean headerMatches(String condition, String value) {
        if ("*".equals(condition)) {
            return true;
        }
        if (condition.startsWith("~")) {
            return PATTERNS.computeIfAbsent(condition, c -> Pattern.compile(c.substring(1), Pattern.CASE_INSENSITIVE)).matcher(value).find();
        }
        return value.equalsIgnoreCase(condition.strip());
    }

    /** No rules at all. */
    public static final ErrorRules NONE = new ErrorRules(List.of(), Set.of(), Set.of(), List::of, Set.of());

    private final Set<ErrorRule> authoritative;

    private final Map<String, List<ErrorRule>> plugin;
    private final Set<String> fullText;
    private final Set<String> honourScope;
    private final Supplier<List<ErrorRule>> operator;
    private volatile Snapshot snapshot = new Snapshot(List.of(), Map.of());

    /**
     * Creates the registry.
     *
     * @param pluginRules the rules plugins contributed
     * @param fullTextProviders providers whose descriptor opts into full-text matching (ER-2, ER-6)
     * @param honourScopeProviders providers whose descriptor opts into honoured scopes (ER-3, ER-6)
     * @param operatorRules the operators' rules, read on each use (they change at run time)
     * @param ownProviderRules those of {@code pluginRules} whose provider the contributing plugin
     *     itself declares: they decide ahead of the built-in text patterns (issue 27)
     */
    public ErrorRules(List<ErrorRule> pluginRules, Set<String> fullTextProviders, Set<String> honourScopeProviders,
            Supplier<List<ErrorRule>> operatorRules, Set<ErrorRule> ownProviderRules) {
        this.authoritative = Set.copyOf(ownProviderRules);
        this.plugin = group(pluginRules);
        this.fullText = Set.copyOf(fullTextProviders);
        this.honourScope = Set.copyOf(honourScopeProviders);
        this.operator = operatorRules;
    }

    private static Map<String, List<ErrorRule>> group(List<ErrorRule> rules) {
        Map<String, List<ErrorRule>> m = new HashMap<>();
        for (ErrorRule r : rules) {
            m.computeIfAbsent(r.provider().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(r);
        }
        m.replaceAll((k, v) -> List.copyOf(v));
        return Map.copyOf(m);
    }

    /** The operator rules grouped, rebuilt only when the operator's list changes. */
    private record Snapshot(List<ErrorRule> source, Map<String, List<ErrorRule>> byProvider) {
    }

    private Map<String, List<ErrorRule>> operatorRules() {
        List<ErrorRule> now = operator.get();
        Snapshot s = snapshot;
        if (s.source != now) {
            s = new Snapshot(now, group(now));
            snapshot = s;
        }
        return s.byProvider;
    }

    /**
     * A matched rule.
     *
     * @param rule the rule
     * @param honoured whether its scope is acted on (ER-3)
     * @param authoritative whether it is a plugin's rule for its own provider, which decides ahead of
     *     the built-in text patterns (issue 27)
     * @param operator whether it is an operator's rule
     */
    public record Match(ErrorRule rule, boolean honoured, boolean authoritative, boolean operator) {

        /**
         * A plugin rule that is not authoritative.
         *
         * @param rule the rule
         * @param honoured whether its scope is acted on
         */
        public Match(ErrorRule rule, boolean honoured) {
            this(rule, honoured, false, false);
        }
    }

    /**
     * Whether a provider has any rule (a quick test before building texts).
     *
     * @param provider the provider id
     * @return true when plugins or operators declared rules for it
     */
    public boolean any(String provider) {
        String p = provider.toLowerCase(Locale.ROOT);
        return plugin.containsKey(p) || operatorRules().containsKey(p);
    }

    /**
     * The first rule that matches an upstream error.
     *
     * @param provider the provider id
     * @param status the (restated) status
     * @param head the response head
     * @param fullText the whole error text, lower case
     * @param code the structured error code, lower case ("" when none)
     * @param type the structured error type, lower case ("" when none)
     * @return the match, or null
     */
    public Match match(String provider, int status, ResponseHead head, String fullText, String code, String type) {
        String p = provider.toLowerCase(Locale.ROOT);
        List<ErrorRule> ops = operatorRules().get(p);
        List<ErrorRule> own = plugin.get(p);
        if (ops == null && own == null) {
            return null;
        }
        // ER-5: operator rules always see the full text and have their scope honoured; ER-2/ER-3: a
        // plugin's rules only where the provider's descriptor opts in — an operator rule for a
        // provider does not change what its plugin rules see
        if (ops != null) {
            for (ErrorRule r : ops) {
                if (matches(r, status, head, fullText)) {
                    return new Match(r, true, false, true);
                }
            }
        }
        if (own != null) {
            String text = this.fullText.contains(p) ? fullText : code + " " + type;
            for (ErrorRule r : own) {
                if (matches(r, status, head, text)) {
                    return new Match(r, honourScope.contains(p), decides(r), false);
                }
            }
        }
        return null;
    }

    /**
     * Every rule that matches, in the order they are consulted, the first being the one
     * {@link #match} returns: for explaining a verdict ({@code RuleVerdict}'s shadowed rules), never
     * on the request path.
     *
     * @param provider the provider id
     * @param status the (restated) status
     * @param head the response head
     * @param fullText the whole error text, lower case
     * @param code the structured error code, lower case
     * @param type the structured error type, lower case
     * @return the matches, possibly empty
     */
    public List<Match> matchAll(String provider, int status, ResponseHead head, String fullText, String code, String type) {
        String p = provider.toLowerCase(Locale.ROOT);
        List<ErrorRule> ops = operatorRules().get(p);
        List<ErrorRule> own = plugin.get(p);
        List<Match> found = new ArrayList<>();
        if (ops != null) {
            for (ErrorRule r : ops) {
                if (matches(r, status, head, fullText)) {
                    found.add(new Match(r, true, false, true));
                }
            }
        }
        if (own != null) {
            String text = this.fullText.contains(p) ? fullText : code + " " + type;
            boolean honoured = honourScope.contains(p);
            for (ErrorRule r : own) {
                if (matches(r, status, head, text)) {
                    found.add(new Match(r, honoured, decides(r), false));
                }
            }
        }
        return found;
    }

    /**
     * Issue 27: a plugin's rule for its own provider decides ahead of the built-in text patterns
     * when it says something about the wire (a text or header condition); a status-only rule (a
     * catch-all "any 429 is a rate limit") only refines the built-in verdict, so it never turns a
     * quota or an out-of-credit text the built-in tables recognise into a mere rate limit.
     */
    private boolean decides(ErrorRule r) {
        return authoritative.contains(r) && (!r.textMarkers().isEmpty() || !r.headers().isEmpty());
    }

    private static boolean matches(ErrorRule r, int status, ResponseHead head, String text) {
        if (r.status() != null && r.status() != status) {
            return false;
        }
        for (Map.Entry<String, String> h : r.headers().entrySet()) {
            String value = head.first(h.getKey()).map(String::strip).orElse(null);
            if (value == null || !headerMatches(h.getValue(), value)) {
                return false;
            }
        }
        if (r.textMarkers().isEmpty()) {
            return true;
        }
        for (String m : r.textMarkers()) {
            if (text.contains(m.toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }
}
