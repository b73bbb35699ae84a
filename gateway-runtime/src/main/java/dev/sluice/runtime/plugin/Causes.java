package dev.sluice.runtime.plugin;

/**
 * Renders an exception with its causes for an operator: {@code ExceptionInInitializerError caused
 * by PatternSyntaxException: Unclosed group near index 3}. {@link Throwable#toString()} alone
 * hides the part that says what to fix whenever the JDK wraps it (static initialisers, service
 * loading, reflection).
 */
final class Causes {

    /** Deep enough for the JDK's wrappers; a longer chain is a plugin's own and is cut off. */
    private static final int MAX_DEPTH = 6;

    private Causes() {
    }

    /**
     * The exception and its causes, outermost first, each as {@code Type: message}; JDK types by
     * simple name, others by full name so that a plugin author finds their class.
     *
     * @param t the exception
     * @return e.g. {@code ExceptionInInitializerError caused by PatternSyntaxException: ...}
     */
    static String chain(Throwable t) {
        StringBuilder out = new StringBuilder();
        Throwable current = t;
        for (int depth = 0; current != null && depth < MAX_DEPTH; depth++) {
            if (depth > 0) {
                out.append(" caused by ");
            }
            out.append(describe(current));
            Throwable next = current.getCause();
            current = next == current ? null : next;
        }
        if (current != null) {
            out.append(" caused by ...");
        }
        return out.toString();
    }

    private static String describe(Throwable t) {
        String type = t.getClass().getName();
        if (type.startsWith("java.") || type.startsWith("javax.")) {
            type = t.getClass().getSimpleName();
        }
        String message = t.getMessage();
        // PatternSyntaxException and friends draw a caret on a second line: keep one line
        message = message == null ? null : message.strip().replaceAll("\\s*\\R\\s*", " ");
        return message == null || message.isBlank() ? type : type + ": " + message;
    }
}
