package dev.sluice.runtime.combo.routing;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboRequest;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.anthropic.TokenEstimate;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.combo.strategy.QuotaShareStrategy;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientLiveness;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.ModelResolver;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Route;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Routes a request whose {@code model} names a combo (SPEC §13 CO-1, CO-2, CO-5, CO-6): the
 * targets that are eligible right now ({@link TargetScan}) are ordered by the combo's strategy;
 * each is dispatched in turn — a whole walk over its provider's connections — until one serves or
 * a failure's verdict forbids fallback. Attempts are bounded by the combo's {@code maxAttempts}
 * and {@code budgetMs} options; short transient cooldowns are waited out ({@link ComboWait}); when
 * every target failed or none could run, the emergency fallback model is tried last (OF-3).
 */
public final class ComboRouter {

    private static final System.Logger LOG = System.getLogger(ComboRouter.class.getName());

    /** Options a combo's {@code strategyOptions} may carry for the router itself. */
    public static final String MAX_ATTEMPTS = "maxAttempts";
    /** See {@link #MAX_ATTEMPTS}: total time after which no further target is started, ms. */
    public static final String BUDGET_MS = "budgetMs";

    private final ComboStore combos;
    private final ModelResolver resolver;
    private final TargetScan targets;
    private final Function<String, Optional<ComboStrategy>> strategies;
    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final Sleeper sleeper;
    private final Supplier<String> emergencyFallback;
    private final TargetViews views;
    private final ComboPreview preview;
    private final AutoCombos autoCombos;

    /** The model catalog's figures of a provider's model (issue 34). */
    @FunctionalInterface
    public interface ModelFactsLookup {
        /**
         * @param provider the provider id
         * @param model the upstream model
         * @return the figures, {@link dev.sluice.api.ModelFacts#UNKNOWN} when none are known
         */
        dev.sluice.api.ModelFacts of(String provider, String model);

        /** Knows nothing. */
        ModelFactsLookup NONE = (provider, model) -> dev.sluice.api.ModelFacts.UNKNOWN;
    }

    /** Waits out a cooldown (CO-3); production sleeps the request's virtual thread. */
    @FunctionalInterface
    public interface Sleeper {
        /**
         * Sleeps.
         *
         * @param ms how long
         * @throws InterruptedException when interrupted
         */
        void sleep(long ms) throws InterruptedException;
    }

    /**
     * Creates the router with the model catalog and the virtual {@code auto} combos (issue 34).
     *
     * @param combos the combos
     * @param resolver resolves a target's model to a route
     * @param selector checks a target's eligibility (without claiming anything)
     * @param strategies strategy by name
     * @param clock the clock
     * @param settings the live resilience settings ({@code comboCooldownWait})
     * @param sleeper how a wait sleeps
     * @param emergencyFallback the model tried last when every target failed (OF-3), read per request; null for none
     * @param quotas the quotas upstreams announced (OF-4), shown to strategies
     * @param facts the model catalog's figures, shown to strategies ({@link ModelFactsLookup#NONE}: none)
     * @param autoCombos the virtual {@code auto} combos ({@link AutoCombos#NONE}: none)
     */
    public ComboRouter(ComboStore combos, ModelResolver resolver, ConnectionSelector selector,
            Function<String, Optional<ComboStrategy>> strategies, InstantSource clock, Supplier<ResilienceSettings> settings,
            Sleeper sleeper, Supplier<String> emergencyFallback, QuotaObservations quotas, ModelFactsLookup facts, AutoCombos autoCombos) {
        this.views = new TargetViews(quotas, facts, clock);
        this.autoCombos = autoCombos;
        this.combos = combos;
        this.resolver = resolver;
        this.targets = new TargetScan(resolver, selector);
        this.strategies = strategies;
        this.clock = clock;
        this.settings = settings;
        this.sleeper = sleeper;
        this.emergencyFallback = emergencyFallback;
        this.preview = new ComboPreview(targets, strategies, views::of, clock);
    }

    /**
     * Explains a combo's choice now without calling an upstream or moving any state (issue 34).
     *
     * @param combo the combo
     * @param caller the caller whose request is explained
     * @param request what is known of the request
     * @return the explanation
     */
    public ComboExplanation explain(Combo combo, Caller caller, ComboRequest request) {
        return preview.explain(combo, caller, request, views.peek(combo));
    }

    /**
     * The combo a model name denotes.
     *
     * @param model the request's model
     * @return the combo, or empty
     */
    public Optional<Combo> combo(String model) {
        return Combo.storedMayName(model) ? combos.find(model) : Optional.empty();
    }

    /**
     * The combo a model name denotes for a caller: a stored combo, else a virtual {@code auto}
     * combo over the models the caller may use (issue 34).
     *
     * @param model the request's model
     * @param caller the caller
     * @return the combo, or empty
     */
    public Optional<Combo> combo(String model, Caller caller) {
        Optional<Combo> stored = combo(model);
        return stored.isPresent() ? stored : autoCombos.find(model, caller);
    }

    /**
     * Drops what the router and the strategies observed of a combo that was deleted or whose
     * targets were replaced.
     *
     * @param comboName the combo's name
     * @param strategies the strategies to tell
     */
    public void forget(String comboName, ComboStrategies strategies) {
        views.forget(comboName);
        strategies.forget(comboName);
    }

    /**
     * What strategies may read of a request (issue 34), each figure computed only when one asks.
     *
     * @param request the request in canonical form, or null
     * @return the facts
     */
    public static ComboRequest facts(ChatRequest request) {
        if (request == null) {
            return ComboRequest.NONE;
        }
        return ComboRequest.builder().promptPrefixHash(() -> PromptPrefix.of(request))
                .estimatedInputTokens(() -> TokenEstimate.inputTokens(request)).maxOutputTokens(request.maxTokens()).build();
    }

    /**
     * Runs a combo request, waiting out short transient cooldowns within {@code comboCooldownWait}
     * (CO-3, CO-4) instead of answering 429; a wait ends as soon as the caller's client is gone,
     * with the outcome it would have had without waiting.
     *
     * @param combo the combo
     * @param caller the caller
     * @param dispatch dispatches one target
     * @return the outcome; an unserved one carries the combo's trail
     */
    public Outcome run(Combo combo, Caller caller, TargetDispatch dispatch) {
        return run(combo, caller, ComboRequest.NONE, dispatch);
    }

    /**
     * Runs a combo request as {@link #run(Combo, Caller, TargetDispatch)} does, with what the
     * strategy may read of the request.
     *
     * @param combo the combo
     * @param caller the caller
     * @param request what is known of the request
     * @param dispatch dispatches one target
     * @return the outcome
     */
    public Outcome run(Combo combo, Caller caller, ComboRequest request, TargetDispatch dispatch) {
        // QC-3: a quota-share combo's requests take turns on capped accounts, failing open
        Caller forTargets = QuotaShareStrategy.NAME.equals(combo.strategy()) ? caller.forQuotaShare() : caller;
        Outcome outcome = runTargets(combo, forTargets, caller.client(), request, dispatch);
        if (outcome instanceof Outcome.Served || (outcome instanceof Outcome.Refused r && r.clientGone())
                || (outcome instanceof Outcome.Unroutable u && StrategyHolds.isRefusal(u))
                || (outcome instanceof Outcome.Failed f && !f.verdict().fallback())) {
            // OF-3 is for targets that failed or could not run, not for a request every model would refuse
            return outcome;
        }
        // OF-3: one last configured target when every target failed or none could run
        String last = emergencyFallback.get();
        if (last == null || combo.targets().stream().anyMatch(t -> t.model().equals(last) && t.connectionId() == null)) {
            return outcome;
        }
        Optional<Route> route = resolver.resolve(last);
        if (route.isEmpty()) {
            return outcome;
        }
        Outcome r = dispatch.dispatch(route.get(), caller);
        return r instanceof Outcome.Served ? r : outcome;
    }

    private Outcome runTargets(Combo combo, Caller caller, ClientLiveness client, ComboRequest request, TargetDispatch dispatch) {
        ResilienceSettings.ComboCooldownWait w = settings.get().comboCooldownWait();
        // the combo's own limits hold across the passes of one request
        Budget budget = new Budget(intOption(combo, MAX_ATTEMPTS, Integer.MAX_VALUE), intOption(combo, BUDGET_MS, 0), clock.millis());
        int waits = 0;
        long waited = 0;
        while (true) {
            Outcome r = pass(combo, caller, request, dispatch, budget);
            if (r instanceof Outcome.Served || r instanceof Outcome.Refused) {
                // a queue refusal is not a cooldown to wait out: the queue already waited
                return trail(r, combo, Outcome.Held.NONE);
            }
            if (r instanceof Outcome.Unroutable) {
                // issue 32: no target passes the body through; waiting changes nothing
                return r;
            }
            long transientMs;
            List<ConnectionSelector.Excluded> excluded = List.of();
            if (r instanceof Outcome.Failed f) {
                // CO-3: only a request that would end in a transient 429 waits; everything else ends here
                if (!ComboWait.transient429(f.verdict()) || budget.exhausted(clock.millis())) {
                    return trail(r, combo, Outcome.Held.NONE);
                }
                List<ConnectionSelector.Excluded> held = targets.heldNow(combo, caller);
                long hint = f.verdict().retryAfterMs() == null ? 0 : f.verdict().retryAfterMs();
                // a target eligible again at once still waits for the 429's own hint (never an immediate re-send)
                transientMs = held == null ? hint : Math.max(hint, ComboWait.soonestTransient(held));
            } else {
                excluded = r instanceof Outcome.CoolingDown c ? c.excluded() : ((Outcome.NoConnection) r).excluded();
                transientMs = ComboWait.soonestTransient(excluded);
            }
            if (ComboWait.mayWait(w, transientMs, waits, waited)) {
                long wait = transientMs + ComboWait.WAIT_MARGIN_MS;
                try {
                    if (!ComboWait.waitOut(wait, client, sleeper)) {
                        LOG.log(System.Logger.Level.INFO, "combo " + combo.name() + ": the client disconnected during a "
                                + wait + " ms cooldown wait; the request is abandoned");
                        return trail(r, combo, Outcome.Held.NONE);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return trail(r, combo, Outcome.Held.NONE);
                }
                waits++;
                waited += wait;
                continue;
            }
            return trail(r, combo, r instanceof Outcome.Failed ? Outcome.Held.NONE : ComboWait.classify(excluded));
        }
    }

    private Outcome trail(Outcome o, Combo combo, Outcome.Held held) {
        return o instanceof Outcome.Unserved u ? u.inCombo(new Outcome.ComboTrail(combo, held, clock.millis())) : o;
    }

    /** A combo's {@code maxAttempts} / {@code budgetMs} across the passes of one request. */
    private static final class Budget {
        final int maxAttempts;
        final long budgetMs;
        final long startedAt;
        int attempts;
        /** CO-6: connections a connection-scoped quota rule exhausted during this request. */
        final Set<String> exhaustedConnections = new HashSet<>(0);

        Budget(int maxAttempts, long budgetMs, long startedAt) {
            this.maxAttempts = maxAttempts;
            this.budgetMs = budgetMs;
            this.startedAt = startedAt;
        }

        boolean exhausted(long now) {
            return attempts >= maxAttempts || (budgetMs > 0 && attempts > 0 && now - startedAt >= budgetMs);
        }
    }

    /** One pass over the eligible targets in the strategy's order (no waiting). */
    private Outcome pass(Combo combo, Caller caller, ComboRequest request, TargetDispatch dispatch, Budget budget) {
        ComboStats st = views.statsFor(combo);
        TargetScan.Result scan = targets.scan(combo, caller);
        List<ConnectionSelector.Excluded> excluded = new ArrayList<>(scan.excluded());
        if (scan.eligible().isEmpty()) {
            return ComboWait.held(excluded);
        }
        Map<Integer, TargetScan.Eligible> byIndex = new HashMap<>();
        for (TargetScan.Eligible e : scan.eligible()) {
            byIndex.put(e.index(), e);
        }
        List<ComboTargetView> eligible = views.of(combo, scan.eligible(), st);
        ComboStrategy strategy = strategies.apply(combo.strategy()).orElse(null);
        ComboContext ctx = new ComboContext(combo.name(), combo.strategyOptions(), ThreadLocalRandom.current(), clock.millis(), request);
        // issue 34: targets the strategy holds back for this request (a window too small) are not tried at all
        StrategyHolds holds = StrategyHolds.of(strategy, ctx, eligible);
        if (holds.all()) {
            return holds.refusal(combo.name());
        }
        Outcome.Failed last = null;
        Outcome.Refused refused = null;
        Outcome.Unroutable untranslatable = null;
        for (ComboTargetView v : StrategyOrder.of(combo, strategy, ctx, holds.kept())) {
            if (budget.exhausted(clock.millis())) {
                break;
            }
            TargetScan.Eligible target = byIndex.get(v.index());
            String pinned = combo.targets().get(v.index()).connectionId();
            if (target == null || (pinned != null && budget.exhaustedConnections.contains(pinned))) {
                // CO-6: a target naming a connection this request already found exhausted is skipped
                continue;
            }
            budget.attempts++;
            int index = v.index();
            long startedAt = clock.millis();
            st.started(index, startedAt);
            Outcome r;
            try {
                r = dispatch.dispatch(target.route(), target.caller());
            } catch (RuntimeException | Error e) {
                st.ended(index);
                throw e;
            }
            switch (r) {
                case Outcome.Served s -> {
                    long now = clock.millis();
                    st.succeeded(index, now, now - startedAt);
                    // in flight until the answer is written: a stream counts for as long as it runs
                    ComboStats counted = st;
                    s.lease().alsoOnClose(() -> counted.ended(index));
                    return s;
                }
                case Outcome.Failed f -> {
                    st.ended(index);
                    st.failed(index);
                    last = f;
                    if (ComboWait.exhaustsConnection(f.verdict())) {
                        budget.exhaustedConnections.add(f.connection().id());
                    }
                    if (!f.verdict().fallback()) {
                        return f;
                    }
                }
                case Outcome.CoolingDown c -> {
                    st.ended(index);
                    excluded.addAll(c.excluded());
                }
                case Outcome.NoConnection n -> {
                    st.ended(index);
                    excluded.addAll(n.excluded());
                }
                case Outcome.Refused t -> {
                    st.ended(index);
                    // §12/§14: this target's queues refused it; the next target may have room
                    refused = t;
                    if (t.clientGone()) {
                        return t;
                    }
                }
                case Outcome.Unroutable u -> {
                    st.ended(index);
                    if (u.why() == Outcome.Unroutable.Why.UNTRANSLATABLE) {
                        untranslatable = u;
                    }
                }
            }
        }
        if (last != null) {
            return last;
        }
        if (refused == null && untranslatable != null && excluded.isEmpty()) {
            // issue 32: no target passes the body through, and none was held back: the client's 400
            return untranslatable;
        }
        return refused != null ? refused : ComboWait.held(excluded);
    }

    private static int intOption(Combo combo, String key, int fallback) {
        Object v = combo.strategyOptions().get(key);
        return v instanceof Number n && n.intValue() > 0 ? n.intValue() : fallback;
    }
}
