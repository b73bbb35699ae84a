package dev.sluice.runtime.openai;

/**
 * The one rule for a client's model name (issue 29, point 3), applied before routing by every
 * endpoint that takes one: a model name names routes, and its parts go into upstream bodies, URL
 * paths and response headers ({@code X-Sluice-Model}), so a name that one of those cannot carry is
 * refused before any upstream is called (and billed). At most {@value #MAX_LENGTH} characters; no
 * control characters (C0, DEL, C1, the Unicode line and paragraph separators); no whitespace at the
 * start or end of the name or of any of its {@code /}-separated parts ({@code "mk/ x"} would be the
 * upstream model {@code " x"}). Costs one pass over at most {@value #MAX_LENGTH} characters.
 */
public final class ModelNames {

    /** Longest accepted model name. */
    public static final int MAX_LENGTH = 256;

    private ModelNames() {
    }

    /**
     * What is wrong with a model name, as a message naming the field, or null when it is valid.
     *
     * @param field the field's name, e.g. {@code model}
     * @param model the name, non-empty
     * @return the problem, or null
     */
    public static String problem(String field, String model) {
        if (model.isEmpty()) {
            return "'" + field + "' must not be empty.";
        }
        if (model.length() > MAX_LENGTH) {
            return "'" + field + "' is longer than " + MAX_LENGTH + " characters.";
        }
        for (int i = 0; i < model.length(); i++) {
            char ch = model.charAt(i);
            if (Character.isISOControl(ch) || ch == '\u2028' || ch == '\u2029') {
                return "'" + field + "' contains a control character.";
            }
            if (Character.isHighSurrogate(ch) && i + 1 < model.length() && Character.isLowSurrogate(model.charAt(i + 1))) {
                i++;
                continue;
            }
            if (Character.isSurrogate(ch)) {
                // no upstream can be sent it, and usage would store it as '?', merging different names
                return "'" + field + "' contains a lone UTF-16 surrogate (\\u" + Integer.toHexString(ch) + ").";
            }
            if (blank(ch) && (i == 0 || i == model.length() - 1 || model.charAt(i - 1) == '/' || model.charAt(i + 1) == '/')) {
                return "'" + field + "' must not start or end with whitespace, nor have whitespace next to '/'.";
            }
        }
        return null;
    }

    private static boolean blank(char ch) {
        return Character.isWhitespace(ch) || Character.isSpaceChar(ch);
    }
}
