package dev.sluice.runtime.routing;

import dev.sluice.api.combo.ComboContext;
import dev.sluice.api.combo.ComboStrategy;
import dev.sluice.api.combo.ComboTargetView;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.combo.strategy.QuotaShareStrategy;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.ConnectionGates;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.QuotaObservations;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.Verdict;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Routes a request whose {@code model} names a combo (SPEC §13 CO-1, CO-2, CO-5, CO-6): the
 * targets that are eligible right now (each resolves to a provider with a connection no
 * resilience mechanism holds back, pinned targets to their own connection) are ordered by the
 * combo's strategy; each is dispatched in turn — a whole walk over its provider's connections —
 * until one serves or a failure's verdict forbids fallback. Attempts are bounded by the combo's
 * {@code maxAttempts} and {@code budgetMs} options. When nothing was attempted, the answer says
 * which mechanism held each target back.
 */
public final class ComboRouter {

    private static final System.Logger LOG = System.getLogger(ComboRouter.class.getName());

    /** Options a combo's {@code strategyOptions} may carry for the router itself. */
    public static final String MAX_ATTEMPTS = "maxAttempts";
    /** See {@link #MAX_ATTEMPTS}: total time after which no further target is started, ms. */
    public static final String BUDGET_MS = "budgetMs";

    private final ComboStore combos;
    private final ModelResolver resolver;
    private final ConnectionSelector selector;
    private final Function<String, Optional<ComboStrategy>> strategies;
    private final InstantSource clock;
    private final Supplier<ResilienceSettings> settings;
    private final Sleeper sleeper;
    private final Supplier<String> emergencyFallback;
    private final QuotaObservations quotas;
    private final ConcurrentHashMap<String, Stats> stats = new ConcurrentHashMap<>();

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

    /** Failure reasons a combo never waits for (CO-3): quota, auth, not found. */
    static final Set<FailureReason> NOT_WAITABLE = java.util.EnumSet.of(FailureReason.QUOTA_EXHAUSTED, FailureReason.CREDITS_EXHAUSTED,
            FailureReason.AUTH_ERROR, FailureReason.FORBIDDEN, FailureReason.EXPIRED, FailureReason.BANNED, FailureReason.NOT_FOUND,
            FailureReason.NOT_FOUND_LOCAL, FailureReason.MODEL_ACCESS_DENIED, FailureReason.REQUEST_REJECTED);
    /** CO-3: a wait ends this long after the cooldown it waits for. */
    static final long WAIT_MARGIN_MS = 50;
    /** CO-3: a wait is slept in slices this long, the client's connection checked before each. */
    static final long WAIT_SLICE_MS = 100;

    /**
     * Creates the router.
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
     */
    public ComboRouter(ComboStore combos, ModelResolver resolver, ConnectionSelector selector,
            Function<String, Optional<ComboStrategy>> strategies, InstantSource clock, Supplier<ResilienceSettings> settings,
            Sleeper sleeper, Supplier<String> emergencyFallback, QuotaObservations quotas) {
        this.quotas = quotas;
        this.emergencyFallback = emergencyFallback;
        this.settings = settings;
        this.sleeper = sleeper;
        this.combos = combos;
        this.resolver = resolver;
        this.selector = selector;
        this.strategies = strategies;
        this.clock = clock;
    }

    /**
     * The combo a model name denotes.
     *
     * @param model the request's model
     * @return the combo, or empty
     */
    public Optional<Combo> combo(String model) {
        return model == null || model.indexOf('/') >= 0 ? Optional.empty() : combos.find(model);
    }

    /**
     * Drops what the router and the strategies observed of a combo that was deleted or whose
     * targets were replaced.
     *
     * @param comboName the combo's name
     * @param strategies the strategies to tell
     */
    public void forget(String comboName, ComboStrategies strategies) {
        stats.remove(comboName);
        strategies.forget(comboName);
    }

    /**
     * How a combo request ended.
     *
     * @param result the served target's result, the last failure, or why nothing ran
     * @param route the route of the served or last tried target, or null when nothing was tried
     * @param held when nothing was tried: how the targets were held back
     * @param decidedAt when the outcome was decided, epoch ms (the base of a {@code reset_at})
     * @param finished to run once the served answer has been written (a stream to its end): the
     *        served target stops counting as in flight (CO-2 {@code p2c}); idempotent, a no-op
     *        when nothing was served
     * @param <T> the value type
     */
    public record Outcome<T>(DispatchResult<T> result, Route route, Held held, long decidedAt, Runnable finished) {
        /** No null {@code finished}. */
        public Outcome {
            finished = finished == null ? NOTHING : finished;
        }

        Outcome(DispatchResult<T> result, Route route, Held held, long decidedAt) {
            this(result, route, held, decidedAt, NOTHING);
        }

        Outcome(DispatchResult<T> result, Route route) {
            this(result, route, Held.NONE, 0, NOTHING);
        }
    }

    private static final Runnable NOTHING = () -> { };

    /** How every target was held back before dispatch (CO-4, CO-5). */
    public enum Held {
        /** Something was tried, or nothing to say. */
        NONE,
        /** Only short transient cooldowns or lockouts, too long (or too many) to wait for: 429 {@code rate_limit_error}. */
        RATE_LIMITED,
        /** Only quota, auth or not-found locks: 503 {@code ALL_TARGETS_SKIPPED}, no hint. */
        SKIPPED
    }

    /**
     * Runs a combo request, waiting out short transient cooldowns within {@code comboCooldownWait}
     * (CO-3, CO-4) instead of answering 429.
     *
     * @param combo the combo
     * @param caller the caller
     * @param dispatch dispatches one target: its route and the caller narrowed to the target's pinned connection
     * @param <T> the value type
     * @return the outcome
     */
    public <T> Outcome<T> run(Combo combo, Caller caller, BiFunction<Route, Caller, DispatchResult<T>> dispatch) {
        return run(combo, caller, ClientLiveness.ALWAYS, dispatch);
    }

    /**
     * Runs a combo request like {@link #run(Combo, Caller, BiFunction)}; a wait ends as soon as
     * the client is gone (CO-3), with the outcome it would have had without waiting.
     *
     * @param combo the combo
     * @param caller the caller
     * @param client whether the client is still connected, asked between slices of a wait
     * @param dispatch dispatches one target: its route and the caller narrowed to the target's pinned connection
     * @param <T> the value type
     * @return the outcome
     */
    public <T> Outcome<T> run(Combo combo, Caller caller, ClientLiveness client, BiFunction<Route, Caller, DispatchResult<T>> dispatch) {
        // QC-3: a quota-share combo's requests take turns on capped accounts, failing open
        Caller forTargets = QuotaShareStrategy.NAME.equals(combo.strategy()) ? caller.forQuotaShare() : caller;
        Outcome<T> outcome = runTargets(combo, forTargets, client, dispatch);
        if (outcome.result() instanceof DispatchResult.Served<T>
                || (outcome.result() instanceof DispatchResult.Throttled<T> t && t.refusal() == ConnectionGates.Refusal.CLIENT_DISCONNECTED)
                || (outcome.result() instanceof DispatchResult.Failed<T> f && !f.verdict().fallback())) {
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
        DispatchResult<T> r = dispatch.apply(route.get(), caller);
        return r instanceof DispatchResult.Served<T> s ? new Outcome<>(r, route.get(), Held.NONE, clock.millis(), s.finished()) : outcome;
    }

    private <T> Outcome<T> runTargets(Combo combo, Caller caller, ClientLiveness client,
            BiFunction<Route, Caller, DispatchResult<T>> dispatch) {
        ResilienceSettings.ComboCooldownWait w = settings.get().comboCooldownWait();
        // the combo's own limits hold across the passes of one request
        Limits limits = new Limits(intOption(combo, MAX_ATTEMPTS, Integer.MAX_VALUE), intOption(combo, BUDGET_MS, 0), clock.millis());
        int waits = 0;
        long waited = 0;
        while (true) {
            Outcome<T> pass = pass(combo, caller, dispatch, limits);
            DispatchResult<T> r = pass.result();
            if (r instanceof DispatchResult.Served<T> || r instanceof DispatchResult.Throttled<T>) {
                // a queue refusal is not a cooldown to wait out: the queue already waited
                return stamped(pass);
            }
            long transientMs;
            List<ConnectionSelector.Excluded> excluded = List.of();
            if (r instanceof DispatchResult.Failed<T> f) {
                // CO-3: only a request that would end in a transient 429 waits; everything else ends here
                boolean transient429 = f.verdict().status() == 429 && !notWaitable(f.verdict().reason());
                if (!transient429 || limits.exhausted(clock.millis())) {
                    return stamped(pass);
                }
                List<ConnectionSelector.Excluded> held = heldNow(combo, caller);
                long hint = f.verdict().retryAfterMs() == null ? 0 : f.verdict().retryAfterMs();
                // a target eligible again at once still waits for the 429's own hint (never an immediate re-send)
                transientMs = held == null ? hint : Math.max(hint, soonestTransient(held));
            } else {
                excluded = r instanceof DispatchResult.CoolingDown<T> c ? c.excluded() : ((DispatchResult.NoConnection<T>) r).excluded();
                transientMs = soonestTransient(excluded);
            }
            if (mayWait(w, transientMs, waits, waited)) {
                long wait = transientMs + WAIT_MARGIN_MS;
                try {
                    if (!waitOut(wait, client, sleeper)) {
                        LOG.log(System.Logger.Level.INFO, "combo " + combo.name() + ": the client disconnected during a "
                                + wait + " ms cooldown wait; the request is abandoned");
                        return stamped(pass);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return stamped(pass);
                }
                waits++;
                waited += wait;
                continue;
            }
            if (r instanceof DispatchResult.Failed<T>) {
                return stamped(pass);
            }
            return new Outcome<>(r, null, classify(excluded), clock.millis());
        }
    }

    /**
     * Sleeps {@code ms} in slices of {@link #WAIT_SLICE_MS}, asking the client before each.
     *
     * @param ms how long
     * @param client the client
     * @param sleeper how to sleep
     * @return false when the client went away (the wait ended early)
     * @throws InterruptedException when interrupted
     */
    static boolean waitOut(long ms, ClientLiveness client, Sleeper sleeper) throws InterruptedException {
        for (long left = ms; left > 0; left -= WAIT_SLICE_MS) {
            if (!client.connected()) {
                return false;
            }
            sleeper.sleep(Math.min(WAIT_SLICE_MS, left));
        }
        return client.connected();
    }

    private <T> Outcome<T> stamped(Outcome<T> o) {
        return new Outcome<>(o.result(), o.route(), o.held(), clock.millis(), o.finished());
    }

    /** A combo's {@code maxAttempts} / {@code budgetMs} across the passes of one request. */
    private static final class Limits {
        final int maxAttempts;
        final long budgetMs;
        final long startedAt;
        int attempts;
        /** CO-6: connections a connection-scoped quota rule exhausted during this request. */
        final Set<String> exhaustedConnections = new java.util.HashSet<>(0);

        Limits(int maxAttempts, long budgetMs, long startedAt) {
            this.maxAttempts = maxAttempts;
            this.budgetMs = budgetMs;
            this.startedAt = startedAt;
        }

        boolean exhausted(long now) {
            return attempts >= maxAttempts || (budgetMs > 0 && attempts > 0 && now - startedAt >= budgetMs);
        }
    }

    /**
     * CO-6: an honoured connection-scoped quota rule (§16.2 ER-3) exhausts the connection for the
     * rest of the request, whether or not a cooldown persists it ({@code disableCooling}).
     */
    static boolean exhaustsConnection(Verdict v) {
        return v.ruleScope() == dev.sluice.api.rules.LockScope.CONNECTION && v.lockScope() == dev.sluice.api.rules.LockScope.CONNECTION
                && v.reason() == FailureReason.QUOTA_EXHAUSTED;
    }

    private static boolean notWaitable(FailureReason r) {
        return r != null && NOT_WAITABLE.contains(r);
    }

    /**
     * CO-4: {@code enabled ∧ 0 < wait ≤ maxWaitMs ∧ attempt < maxAttempts ∧ budgetLeft ≥ wait},
     * with {@code wait} the earliest transient expiry + 50 ms.
     *
     * @param w the settings
     * @param transientMs ms until the earliest waitable hold ends, or -1 when there is none
     * @param waits waits so far in this request
     * @param waited ms waited so far in this request
     * @return whether to wait
     */
    static boolean mayWait(ResilienceSettings.ComboCooldownWait w, long transientMs, int waits, long waited) {
        if (!w.enabled() || transientMs < 0) {
            return false;
        }
        long wait = transientMs + WAIT_MARGIN_MS;
        return wait <= w.maxWaitMs() && waits < w.maxAttempts() && waited + wait <= w.budgetMs();
    }

    /** The exclusions when no target is eligible now, or null when one is. */
    private List<ConnectionSelector.Excluded> heldNow(Combo combo, Caller caller) {
        Scan scan = scan(combo, caller);
        return scan.eligible().isEmpty() ? scan.excluded() : null;
    }

    /** A target that may serve now: its route, the caller narrowed to its pinned connection, the connection that would serve. */
    private record Eligible(int index, Route route, Caller caller, Candidate first) {
    }

    /** The combo's targets sorted into those that may serve now and the holds of the others. */
    private record Scan(List<Eligible> eligible, List<ConnectionSelector.Excluded> excluded) {
    }

    /** Which targets are eligible now: resolved, pinned connection allowed, a connection no mechanism holds back. */
    private Scan scan(Combo combo, Caller caller) {
        List<Eligible> eligible = new ArrayList<>();
        List<ConnectionSelector.Excluded> excluded = new ArrayList<>();
        for (int i = 0; i < combo.targets().size(); i++) {
            ComboTarget t = combo.targets().get(i);
            Optional<Route> route = resolver.resolve(t.model());
            Caller narrowed = narrow(caller, t.connectionId());
            if (route.isEmpty() || narrowed == null) {
                continue;
            }
            ConnectionSelector.Cursor cursor = selector.open(route.get(), narrowed);
            Candidate first = cursor.next();
            if (first == null) {
                excluded.addAll(cursor.excluded());
            } else {
                eligible.add(new Eligible(i, route.get(), narrowed, first));
            }
        }
        return new Scan(eligible, excluded);
    }

    /** A connection cooldown or model lockout whose failure may pass by itself (CO-3). */
    private static boolean waitable(Exclusion e) {
        return (e.reason() == Exclusion.Reason.UNAVAILABLE || e.reason() == Exclusion.Reason.MODEL_LOCKOUT)
                && !notWaitable(e.cause());
    }

    /** The soonest end of a waitable hold, or -1. */
    static long soonestTransient(List<ConnectionSelector.Excluded> excluded) {
        long soonest = -1;
        for (ConnectionSelector.Excluded x : excluded) {
            if (waitable(x.exclusion()) && (soonest < 0 || x.exclusion().remainingMs() < soonest)) {
                soonest = x.exclusion().remainingMs();
            }
        }
        return soonest;
    }

    /** CO-4 / CO-5: how a fully held-back combo answers. */
    static Held classify(List<ConnectionSelector.Excluded> excluded) {
        boolean anyTimer = false;
        boolean allWaitable = true;
        boolean allNotWaitable = true;
        for (ConnectionSelector.Excluded x : excluded) {
            Exclusion e = x.exclusion();
            if (!e.reason().timer()) {
                continue;
            }
            anyTimer = true;
            boolean lock = e.reason() == Exclusion.Reason.UNAVAILABLE || e.reason() == Exclusion.Reason.MODEL_LOCKOUT;
            allWaitable &= waitable(e);
            allNotWaitable &= lock && notWaitable(e.cause());
        }
        if (!anyTimer) {
            return Held.NONE;
        }
        if (allNotWaitable) {
            return Held.SKIPPED;
        }
        return allWaitable ? Held.RATE_LIMITED : Held.NONE;
    }

    /**
     * One pass over the eligible targets in the strategy's order (no waiting).
     *
     * @param combo the combo
     * @param caller the caller
     * @param dispatch dispatches one target: its route and the caller narrowed to the target's pinned connection
     * @param <T> the value type
     * @return the outcome
     */
    private <T> Outcome<T> pass(Combo combo, Caller caller, BiFunction<Route, Caller, DispatchResult<T>> dispatch, Limits limits) {
        // a request that read an older copy of the combo never resets the newer one's stats
        Stats st = stats.compute(combo.name(), (k, old) -> old != null && (old.version > combo.updatedAt()
                || (old.version == combo.updatedAt() && old.size() == combo.targets().size()))
                ? old : new Stats(combo.updatedAt(), combo.targets().size()));
        if (st.size() != combo.targets().size()) {
            st = new Stats(combo.updatedAt(), combo.targets().size());
        }
        Scan scan = scan(combo, caller);
        List<ConnectionSelector.Excluded> excluded = new ArrayList<>(scan.excluded());
        if (scan.eligible().isEmpty()) {
            return new Outcome<>(held(excluded), null);
        }
        List<ComboTargetView> eligible = new ArrayList<>();
        Map<Integer, Eligible> byIndex = new HashMap<>();
        for (Eligible e : scan.eligible()) {
            byIndex.put(e.index(), e);
            // OF-4: the quota the connection that would serve last announced
            eligible.add(st.view(e.index(), combo.targets().get(e.index()), quotas.of(e.first().connection().id())));
        }
        ComboStrategy strategy = strategies.apply(combo.strategy()).orElse(null);
        if (strategy == null) {
            // a plugin that contributed it is gone: list order rather than a 500
            LOG.log(System.Logger.Level.WARNING, "combo " + combo.name() + " names unknown strategy " + combo.strategy() + "; list order used");
        }
        long now = clock.millis();
        List<ComboTargetView> order = strategy == null ? List.copyOf(eligible) : ordered(strategy, new ComboContext(combo.name(), combo.strategyOptions(), ThreadLocalRandom.current(),
                now), List.copyOf(eligible));
        DispatchResult<T> last = null;
        Route lastRoute = null;
        DispatchResult.Throttled<T> throttled = null;
        Route throttledRoute = null;
        for (ComboTargetView v : order) {
            if (limits.exhausted(clock.millis())) {
                break;
            }
            Eligible target = byIndex.get(v.index());
            if (target == null) {
                continue;
            }
            String pinned = combo.targets().get(v.index()).connectionId();
            if (pinned != null && limits.exhaustedConnections.contains(pinned)) {
                // CO-6: a target naming a connection this request already found exhausted is skipped
                continue;
            }
            Route route = target.route();
            limits.attempts++;
            st.started(v.index(), clock.millis());
            DispatchResult<T> r;
            try {
                r = dispatch.apply(route, target.caller());
            } catch (RuntimeException | Error e) {
                st.ended(v.index());
                throw e;
            }
            if (!(r instanceof DispatchResult.Served<T>)) {
                st.ended(v.index());
            }
            switch (r) {
                case DispatchResult.Served<T> s -> {
                    st.succeeded(v.index(), clock.millis());
                    // in flight until the answer is written: a stream counts for as long as it runs
                    int index = v.index();
                    Stats counted = st;
                    AtomicBoolean once = new AtomicBoolean();
                    return new Outcome<>(s, route, Held.NONE, 0, () -> {
                        if (once.compareAndSet(false, true)) {
                            counted.ended(index);
                            s.finished().run();
                        }
                    });
                }
                case DispatchResult.Failed<T> f -> {
                    last = f;
                    lastRoute = route;
                    if (exhaustsConnection(f.verdict())) {
                        limits.exhaustedConnections.add(f.connection().id());
                    }
                    if (!f.verdict().fallback()) {
                        return new Outcome<>(f, route);
                    }
                }
                case DispatchResult.CoolingDown<T> c -> excluded.addAll(c.excluded());
                case DispatchResult.NoConnection<T> n -> excluded.addAll(n.excluded());
                case DispatchResult.Throttled<T> t -> {
                    // §12/§14: this target's queues refused it; the next target may have room
                    throttled = t;
                    throttledRoute = route;
                    if (t.refusal() == ConnectionGates.Refusal.CLIENT_DISCONNECTED) {
                        return new Outcome<>(t, route);
                    }
                }
            }
        }
        if (last != null) {
            return new Outcome<>(last, lastRoute);
        }
        return throttled != null ? new Outcome<>(throttled, throttledRoute) : new Outcome<>(held(excluded), null);
    }

    /**
     * The strategy's order, checked: a strategy (a plugin's, say) that throws or does not return
     * each eligible target exactly once is not trusted — the list order serves instead, and the
     * server log says why.
     */
    private static List<ComboTargetView> ordered(ComboStrategy strategy, ComboContext ctx, List<ComboTargetView> eligible) {
        List<ComboTargetView> order;
        try {
            order = strategy.order(ctx, eligible);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "combo " + ctx.comboName() + ": strategy " + strategy.name() + " failed (" + e
                    + "); list order used");
            return eligible;
        }
        if (order == null || order.size() != eligible.size() || !new java.util.HashSet<>(order).equals(new java.util.HashSet<>(eligible))) {
            LOG.log(System.Logger.Level.WARNING, "combo " + ctx.comboName() + ": strategy " + strategy.name()
                    + " did not return each eligible target exactly once; list order used");
            return eligible;
        }
        return order;
    }

    /** CO-5: every target held back before dispatch — by timers (503) or by nothing that will pass (404). */
    private static <T> DispatchResult<T> held(List<ConnectionSelector.Excluded> excluded) {
        long soonest = -1;
        for (ConnectionSelector.Excluded x : excluded) {
            Exclusion e = x.exclusion();
            if (e.reason().timer() && (soonest < 0 || e.remainingMs() < soonest)) {
                soonest = e.remainingMs();
            }
        }
        return soonest < 0 ? new DispatchResult.NoConnection<>(excluded) : new DispatchResult.CoolingDown<>(soonest, excluded);
    }

    /** The caller restricted to a pinned connection, or null when the caller may not use it. */
    private static Caller narrow(Caller caller, String connectionId) {
        if (connectionId == null) {
            return caller;
        }
        return caller.mayUse(connectionId) ? caller.pinnedTo(connectionId) : null;
    }

    private static int intOption(Combo combo, String key, int fallback) {
        Object v = combo.strategyOptions().get(key);
        return v instanceof Number n && n.intValue() > 0 ? n.intValue() : fallback;
    }

    /** Per-combo observations the strategies read: in flight, uses, last use, last success. */
    private static final class Stats {
        final long version;
        final AtomicLong[] inFlight;
        final AtomicLong[] uses;
        final AtomicLong[] lastUsedAt;
        final AtomicLong[] lastSuccessAt;

        Stats(long version, int n) {
            this.version = version;
            inFlight = counters(n);
            uses = counters(n);
            lastUsedAt = counters(n);
            lastSuccessAt = counters(n);
        }

        private static AtomicLong[] counters(int n) {
            AtomicLong[] a = new AtomicLong[n];
            for (int i = 0; i < n; i++) {
                a[i] = new AtomicLong();
            }
            return a;
        }

        int size() {
            return uses.length;
        }

        ComboTargetView view(int i, ComboTarget t, QuotaObservations.Quota quota) {
            long used = lastUsedAt[i].get();
            long ok = lastSuccessAt[i].get();
            return new ComboTargetView(i, t.model(), t.connectionId(), t.weight() == null ? 1 : t.weight(),
                    t.priority() == null ? i + 1 : t.priority(), t.costPer1kTokens(), inFlight[i].get(), uses[i].get(),
                    used == 0 ? null : used, ok == 0 ? null : ok, quota == null ? null : quota.remaining(),
                    quota == null ? null : quota.resetAt());
        }

        void started(int i, long now) {
            inFlight[i].incrementAndGet();
            uses[i].incrementAndGet();
            lastUsedAt[i].set(now);
        }

        void ended(int i) {
            inFlight[i].decrementAndGet();
        }

        void succeeded(int i, long now) {
            lastSuccessAt[i].set(now);
        }
    }
}
