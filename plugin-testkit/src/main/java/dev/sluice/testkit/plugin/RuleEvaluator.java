package dev.sluice.testkit.plugin;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.RestatementRule;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.openai.OpenAiCodec;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.classify.Verdict;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The runtime's verdict on one upstream error, without a server: a plugin's restatement rules, then
 * the classifier with the plugin's error rules and its providers' opt-ins ({@code fullTextErrorRules},
 * {@code honorsRuleScope}), exactly as the gateway applies them (it runs the runtime's own classes).
 * Operator rules from {@code conf/sluice.yaml} are not included.
 *
 * <pre>{@code
 * RuleEvaluator rules = RuleEvaluator.of(new AcmePlugin());
 * RuleVerdict v = rules.evaluate("acme", 400, Map.of(), "{\"error\":{\"message\":\"quota exhausted\"}}");
 * assertThat(v.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
 * assertThat(v.scope()).isEqualTo(LockScope.CONNECTION);
 * }</pre>
 */
public final class RuleEvaluator {

    private final Map<String, ProviderDescriptor> providers;
    private final StatusRestatement restatement;
    private final ErrorRules errorRules;
    private final FailureClassifier classifier;
    private final InstantSource clock;
    private final OpenAiCodec codec = new OpenAiCodec();

    private RuleEvaluator(List<ProviderDescriptor> providers, List<RestatementRule> restatementRules, List<ErrorRule> rules,
            InstantSource clock) {
        Map<String, ProviderDescriptor> byId = new LinkedHashMap<>();
        Set<String> fullText = new HashSet<>();
        Set<String> honour = new HashSet<>();
        for (ProviderDescriptor d : providers) {
            byId.put(d.id(), d);
            if (d.fullTextErrorRules()) {
                fullText.add(d.id());
            }
            if (d.honorsRuleScope()) {
                honour.add(d.id());
            }
        }
        this.providers = Map.copyOf(byId);
        this.restatement = new StatusRestatement(restatementRules);
        // issue 27: rules for the providers given here are the plugin's own, and decide ahead of the built-in patterns
        Set<ErrorRule> own = new HashSet<>();
        rules.stream().filter(r -> byId.containsKey(r.provider())).forEach(own::add);
        this.errorRules = new ErrorRules(rules, fullText, honour, List::of, own);
        this.classifier = new FailureClassifier(clock, errorRules);
        this.clock = clock;
    }

    /**
     * An evaluator of a plugin's providers and rules, on the system clock.
     *
     * @param plugin the plugin
     * @return the evaluator
     */
    public static RuleEvaluator of(ProviderPlugin plugin) {
        return of(plugin, InstantSource.system());
    }

    /**
     * An evaluator of a plugin's providers and rules, on a given clock (for date hints such as an
     * HTTP-date {@code Retry-After}).
     *
     * @param plugin the plugin
     * @param clock the clock
     * @return the evaluator
     */
    public static RuleEvaluator of(ProviderPlugin plugin, InstantSource clock) {
        requireNonNull(plugin, "plugin is null");
        return new RuleEvaluator(plugin.providers(), plugin.restatementRules(), plugin.errorRules(), requireNonNull(clock, "clock is null"));
    }

    /**
     * An evaluator of explicit descriptors and rules.
     *
     * @param providers the descriptors (their opt-ins decide what the rules see and whether scopes are honoured)
     * @param restatementRules restatement rules
     * @param errorRules error rules
     * @param clock the clock
     * @return the evaluator
     */
    public static RuleEvaluator of(List<ProviderDescriptor> providers, List<RestatementRule> restatementRules,
            List<ErrorRule> errorRules, InstantSource clock) {
        return new RuleEvaluator(List.copyOf(providers), List.copyOf(restatementRules), List.copyOf(errorRules), clock);
    }

    /**
     * The verdict on an error answer as the built-in OpenAI-compatible executor reads it (its
     * structured {@code error.code}, {@code type} and {@code message} parsed from the body).
     *
     * @param provider the provider id
     * @param status the upstream status
     * @param headers response headers (names in any case)
     * @param body the response body
     * @return the verdict
     */
    public RuleVerdict evaluate(String provider, int status, Map<String, String> headers, String body) {
        Map<String, List<String>> multi = new HashMap<>();
        headers.forEach((k, v) -> multi.put(k.toLowerCase(Locale.ROOT), List.of(v)));
        return evaluate(provider, codec.readError(new ResponseHead(status, multi), body == null ? "" : body));
    }

    /**
     * The verdict on an error as the plugin's own executor reported it.
     *
     * @param provider the provider id
     * @param error the error
     * @return the verdict
     */
    public RuleVerdict evaluate(String provider, UpstreamError error) {
        requireNonNull(provider, "provider is null");
        StatusRestatement.Result restated = restatement.apply(provider, requireNonNull(error, "error is null"), clock.millis());
        UpstreamFailure failure = restated.failure();
        ProviderDescriptor descriptor = providers.get(provider);
        ProviderClass connectionClass = descriptor == null ? ProviderClass.APIKEY : descriptor.defaultClass();
        UpstreamError e = (UpstreamError) failure;
        dev.sluice.runtime.resilience.classify.ClassifierExplanation why = classifier.explain(provider, connectionClass, e);
        Verdict v = why.verdict();
        ErrorRules.Match match = why.rule();
        return new RuleVerdict(e.status(), restated.rule() == null ? null : restated.rule().id(),
                match == null ? null : match.rule().id(), v.reason(), v.lockScope(), v.ruleScope(), match != null && match.honoured(),
                v.cooldownMs(), v.retryAfterMs(), v.fallback(), why.decidedBy(), why.shadowed(), v.creditsExhausted() || v.permanent());
    }

}
