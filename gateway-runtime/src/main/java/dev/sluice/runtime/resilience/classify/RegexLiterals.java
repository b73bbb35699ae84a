package dev.sluice.runtime.resilience.classify;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The literal text a regular expression cannot match without, used to skip the regex engine on
 * texts that lack it (an error body is scanned by dozens of patterns; {@link String#contains} is
 * an order of magnitude cheaper than a failed {@code find()}). Conservative: when in doubt there
 * is no required literal, and the pattern always runs.
 */
final class RegexLiterals {

    /** Shorter literals filter too little to be worth the check. */
    static final int MIN_LENGTH = 3;

    private RegexLiterals() {
    }

    /**
     * The longest run of plain characters outside groups and classes that every match contains.
     *
     * @param regex the pattern source (no flags that change case or literal meaning)
     * @return the literal, or null when none is certain
     */
    static String required(String regex) {
        if (hasTopLevelAlternation(regex)) {
            return null;
        }
        String best = "";
        StringBuilder run = new StringBuilder();
        int depth = 0;
        boolean inClass = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                // an escape ends the run: \b, \s, \d … are not literal text (conservative for \. too)
                best = longer(best, run);
                i++;
                continue;
            }
            if (inClass) {
                inClass = c != ']';
                continue;
            }
            switch (c) {
                case '[' -> {
                    best = longer(best, run);
                    inClass = true;
                }
                case '(' -> {
                    best = longer(best, run);
                    depth++;
                }
                case ')' -> {
                    best = longer(best, run);
                    depth--;
                }
                case '?', '*', '{' -> {
                    // the quantifier makes the previous character optional (or repeats it): drop it
                    if (depth == 0 && !run.isEmpty()) {
                        run.setLength(run.length() - 1);
                    }
                    best = longer(best, run);
                    if (c == '{') {
                        int close = regex.indexOf('}', i);
                        i = close < 0 ? regex.length() : close;
                    }
                }
                case '+', '.', '^', '$' -> best = longer(best, run);
                default -> {
                    if (depth == 0) {
                        run.append(c);
                    }
                }
            }
        }
        best = longer(best, run);
        return best.length() >= MIN_LENGTH ? best : null;
    }

    /**
     * The literal every match starts with, after an optional leading {@code \\b}: a match can
     * then only start where that literal occurs, so a scan may try the pattern ({@code lookingAt})
     * at those places only.
     *
     * @param regex the pattern source
     * @return the prefix, or null when the pattern does not start with one of at least
     *     {@link #MIN_LENGTH} characters
     */
    static String prefix(String regex) {
        if (hasTopLevelAlternation(regex)) {
            return null;
        }
        int i = regex.startsWith("\\b") ? 2 : 0;
        StringBuilder run = new StringBuilder();
        for (; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if ("\\[](){}?*+.^$|".indexOf(c) >= 0) {
                if (c == '?' || c == '*' || c == '{') {
                    run.setLength(Math.max(0, run.length() - 1));
                }
                break;
            }
            run.append(c);
        }
        return run.length() >= MIN_LENGTH ? run.toString() : null;
    }

    /**
     * A matcher that sees the whole text around a region (so {@code \\b} at a region's start looks
     * at the character before it), for {@link #findAt}.
     *
     * @param p the pattern
     * @param text the text
     * @return the matcher
     */
    static Matcher anchored(Pattern p, String text) {
        return p.matcher(text).useTransparentBounds(true).useAnchoringBounds(false);
    }

    /**
     * The first match at or after {@code from} that starts where one of the words occurs: the
     * pattern is tried ({@code lookingAt}) only there, not at every position of a long text.
     * Equivalent to {@code find()} for a pattern whose every match starts with one of the words.
     *
     * @param m a matcher from {@link #anchored}
     * @param text the text
     * @param from where to start
     * @param words the words a match starts with
     * @return the start of the match (the matcher holds its groups), or -1
     */
    static int findAt(Matcher m, String text, int from, String... words) {
        int pos = from;
        while (true) {
            int at = -1;
            for (String w : words) {
                int i = text.indexOf(w, pos);
                if (i >= 0 && (at < 0 || i < at)) {
                    at = i;
                }
            }
            if (at < 0) {
                return -1;
            }
            m.region(at, text.length());
            if (m.lookingAt()) {
                return at;
            }
            pos = at + 1;
        }
    }

    private static String longer(String best, StringBuilder run) {
        String candidate = run.toString();
        run.setLength(0);
        return candidate.length() > best.length() ? candidate : best;
    }

    private static boolean hasTopLevelAlternation(String regex) {
        int depth = 0;
        boolean inClass = false;
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i++;
            } else if (inClass) {
                inClass = c != ']';
            } else if (c == '[') {
                inClass = true;
            } else if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == '|' && depth == 0) {
                return true;
            }
        }
        return false;
    }
}
