package dev.sluice.runtime.resilience.classify;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SPEC OF-2: an upstream error saying a request has too many tools, and the limit it states
 * ("Invalid 'tools': array too long. Expected an array with maximum length 128", "too many tools,
 * at most 64", "the number of tools exceeds the maximum of 100").
 */
public final class ToolLimitText {

    private static final List<Pattern> PATTERNS = List.of(
            Pattern.compile("\\btoo many tools\\b"),
            Pattern.compile("'?tools'?.{0,40}\\barray too long\\b"),
            Pattern.compile("\\bmaximum (?:number of )?tools\\b"),
            Pattern.compile("\\bnumber of tools\\b.{0,60}\\b(?:exceed|limit|maximum|at most)"),
            Pattern.compile("\\btools\\b.{0,40}\\b(?:at most|no more than|maximum of|exceeds? the (?:maximum|limit))\\b"));
    private static final Pattern NUMBER = Pattern.compile("\\b(\\d{1,5})\\b");

    private ToolLimitText() {
    }

    /**
     * Whether an error text says the request has too many tools.
     *
     * @param text the upstream's error text
     * @return true for a tool-limit error
     */
    public static boolean matches(String text) {
        return find(text) != null;
    }

    /**
     * The tool limit an error text states.
     *
     * @param text the upstream's error text
     * @param toolsSent how many tools the request had
     * @return the limit (the number the text names when it is below what was sent, else one less
     *     than was sent), or -1 when the text is not a tool-limit error
     */
    public static int limit(String text, int toolsSent) {
        Matcher m = find(text);
        if (m == null) {
            return -1;
        }
        Matcher n = NUMBER.matcher(text.toLowerCase(Locale.ROOT));
        while (n.find()) {
            int v = Integer.parseInt(n.group(1));
            if (v > 0 && v < toolsSent) {
                return v;
            }
        }
        return Math.max(0, toolsSent - 1);
    }

    private static Matcher find(String text) {
        if (text == null) {
            return null;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        for (Pattern p : PATTERNS) {
            Matcher m = p.matcher(lower);
            if (m.find()) {
                return m;
            }
        }
        return null;
    }
}
