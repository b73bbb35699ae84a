package dev.sluice.runtime.resilience.classify;

import static dev.sluice.runtime.resilience.classify.ErrorTextMatcher.containsAny;
import static dev.sluice.runtime.resilience.classify.ErrorTextMatcher.findsAny;

import dev.sluice.api.upstream.UpstreamError;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A verdict and what decided it (issue 27), for plugin authors: the plugin test kit's
 * {@code RuleVerdict} shows it so that a rule that matched but lost reads differently from one
 * that did not match. Built only on request ({@link FailureClassifier#explain}), never on the
 * request path.
 *
 * @param verdict the verdict, as {@code classify} returns it
 * @param rule the rule that decided, or null when the built-in classifier did
 * @param decidedBy the rule ({@code error rule 'id' of provider 'p'}, {@code operator rule ...}) or
 *     built-in pattern that decided
 * @param shadowed rules that matched too but did not decide, in the order they are consulted
 */
public record ClassifierExplanation(Verdict verdict, ErrorRules.Match rule, String decidedBy, List<String> shadowed) {

    /** Copies the list. */
    public ClassifierExplanation {
        shadowed = List.copyOf(shadowed);
    }

    /** Explains a verdict the classifier gave an error, with the same text it matched rules against. */
    static ClassifierExplanation of(Verdict v, ErrorRules rules, String provider, UpstreamError e) {
        if (e.status() < 400) {
            return new ClassifierExplanation(v, null, "built-in: an error answer below 400 is an unusable answer", List.of());
        }
        String code = lower(e.errorCode());
        String type = lower(e.errorType());
        String body = e.body().length() > FailureClassifier.MAX_SCANNED_CHARS ? e.body().substring(0, FailureClassifier.MAX_SCANNED_CHARS)
                : e.body();
        String text = (body + "\n" + code + "\n" + type + "\n" + lower(e.message())).toLowerCase(Locale.ROOT);
        List<ErrorRules.Match> matches = provider == null ? List.of() : rules.matchAll(provider, e.status(), e.head(), text, code, type);
        ErrorRules.Match decided = null;
        // the first match decided when it is authoritative or the classifier applied it (a rule scope on the verdict)
        if (!matches.isEmpty() && (matches.get(0).authoritative() || v.ruleScope() != null)) {
            decided = matches.get(0);
        }
        List<String> shadowed = new ArrayList<>();
        for (ErrorRules.Match m : matches) {
            if (m != decided) {
                shadowed.add(label(m));
            }
        }
        String by = decided != null ? label(decided) : builtInLabel(text, e.status(), v);
        if (decided == null && !matches.isEmpty()) {
            by += "; it outranks the rule" + (matches.size() > 1 ? "s" : "") + " that matched";
        }
        return new ClassifierExplanation(v, decided, by, shadowed);
    }

    private static String label(ErrorRules.Match m) {
        return (m.operator() ? "operator rule '" : "error rule '") + m.rule().id() + "' of provider '" + m.rule().provider() + "'"
                + (m.authoritative() ? " (the plugin's own provider: ahead of the built-in patterns)" : "");
    }

    /** Which built-in table decided; the terminal ones are those a rule of another origin cannot undo. */
    private static String builtInLabel(String text, int status, Verdict v) {
        String why;
        if (containsAny(text, ErrorTextPatterns.DEACTIVATED_PHRASES)) {
            why = "deactivated-account text";
        } else if (findsAny(text, ErrorTextPatterns.BILLING_SUSPENSION_PATTERNS)) {
            why = "billing-suspension text";
        } else if (containsAny(text, ErrorTextPatterns.CREDIT_PHRASES) || findsAny(text, ErrorTextPatterns.CREDIT_PATTERNS)) {
            why = "out-of-credit text";
        } else {
            why = "status " + status;
        }
        return "built-in pattern: " + why + " -> " + v.reason().name().toLowerCase(Locale.ROOT)
                + (v.permanent() || v.creditsExhausted() ? " (terminal)" : "");
    }

    private static String lower(String s) {
        return s == null ? "" : s.strip().toLowerCase(Locale.ROOT);
    }
}
