package dev.sluice.runtime.resilience.classify;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Matches the phrase tables of {@link ErrorTextPatterns} against lower-cased error text, cheaply:
 * each pattern compiled here remembers the literal it cannot match without ({@link RegexLiterals}),
 * so that an error body scanned by dozens of patterns mostly costs {@link String#contains} calls.
 */
final class ErrorTextMatcher {

    /**
     * Each pattern's required literal. Filled only by {@link #compile} while {@link ErrorTextPatterns}
     * initialises its tables (class initialisation publishes it to every thread that reads a
     * table), and read-only afterwards.
     */
    private static final Map<Pattern, String> REQUIRED = new IdentityHashMap<>();
    /** Each pattern's leading literal ({@link RegexLiterals#prefix}): matches start only where it occurs. */
    private static final Map<Pattern, String> PREFIX = new IdentityHashMap<>();

    private ErrorTextMatcher() {
    }

    /**
     * Compiles a table's pattern and records its literal; called only from the static initialiser
     * of {@link ErrorTextPatterns}.
     *
     * @param regex the pattern, lower case
     * @return the compiled pattern
     */
    static Pattern compile(String regex) {
        Pattern p = Pattern.compile(regex);
        String prefix = RegexLiterals.prefix(regex);
        if (prefix != null) {
            PREFIX.put(p, prefix);
            return p;
        }
        String literal = RegexLiterals.required(regex);
        if (literal != null) {
            REQUIRED.put(p, literal);
        }
        return p;
    }

    /**
     * Whether the text contains one of the phrases.
     *
     * @param text lower-cased text
     * @param phrases lower-case phrases
     * @return true on the first match
     */
    static boolean containsAny(String text, List<String> phrases) {
        for (String p : phrases) {
            if (text.contains(p)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether one of the patterns is found in the text.
     *
     * @param text lower-cased text
     * @param patterns the patterns
     * @return true on the first match
     */
    static boolean findsAny(String text, List<Pattern> patterns) {
        for (Pattern p : patterns) {
            String prefix = PREFIX.get(p);
            if (prefix != null) {
                if (text.contains(prefix) && RegexLiterals.findAt(RegexLiterals.anchored(p, text), text, 0, prefix) >= 0) {
                    return true;
                }
                continue;
            }
            String literal = REQUIRED.get(p);
            if (literal != null && !text.contains(literal)) {
                continue;
            }
            if (p.matcher(text).find()) {
                return true;
            }
        }
        return false;
    }
}
