package dev.sluice.bench;

import dev.sluice.api.ChatOutcome;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.resilience.lockout.LockoutFailure;
import dev.sluice.runtime.resilience.lockout.ModelLockout;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.routing.BuiltinProviders;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientLiveness;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.routing.SessionRouting;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The NF-3 set-up: one provider ({@code openai}) with {@value #CONNECTIONS} connections of varied
 * priorities on {@value #HOSTS} upstream hosts, model lockout enabled, ten lockouts per connection
 * on other models ({@value #OTHER_MODEL_LOCKOUTS} in all: five model-scoped 429s and five
 * exact-scoped 503s each), connections cooling, and the breaker of one host {@code OPEN}. The
 * requested model is then held back on the best-priority connections according to a
 * {@link Scenario}. The clock is fixed, so nothing expires during a run.
 *
 * <p>Walk order is the selector's: priority, then creation order. The fixture gives every
 * connection a pseudo-random priority (1–100) and places hosts, cooldowns and requested-model
 * lockouts by <em>rank</em> in that order, so each scenario's walk is exactly known:
 * <ul>
 *   <li>rank {@code r} calls host {@code r % 7}; host 6's breaker is {@code OPEN};</li>
 *   <li>ranks with {@code r % 10 == 1} are cooling ({@code rateLimitedUntil} one minute ahead);</li>
 *   <li>the scenario locks the requested model on its held-back ranks.</li>
 * </ul>
 */
final class Fleet {

    static final int CONNECTIONS = 1_000;
    static final int HOSTS = 7;
    static final int OPEN_HOST = 6;
    static final int OTHER_MODELS_PER_CONNECTION = 10;
    static final int OTHER_MODEL_LOCKOUTS = CONNECTIONS * OTHER_MODELS_PER_CONNECTION;
    static final String PROVIDER = "openai";
    static final String MODEL = "gpt-4.1";
    static final Instant NOW = Instant.parse("2026-06-01T12:00:00Z");

    /** What holds the requested model back on the best-priority connections. */
    enum Scenario {
        /** Best case: the requested model is locked nowhere; the first connection in walk order serves. */
        NOTHING_HELD(0, false),
        /**
         * The requested model is locked on the 300 best-priority connections (those of them that are
         * cooling report the cooldown, which is checked first); rank 300 is on the open host and
         * rank 301 is cooling, so rank 302 serves.
         */
        LOCKED_300(300, false),
        /**
         * Worst realistic case: the 900 best-priority connections are all held back, by the mix a
         * bad hour produces: cooling (every tenth), the open breaker (every connection on host 6)
         * and a lockout of the requested model (all the others). Rank 900 serves.
         */
        HELD_900(900, true);

        final int heldRanks;
        final boolean breakerHoldsItsOwn;

        Scenario(int heldRanks, boolean breakerHoldsItsOwn) {
            this.heldRanks = heldRanks;
            this.breakerHoldsItsOwn = breakerHoldsItsOwn;
        }
    }

    final InstantSource clock = InstantSource.fixed(NOW);
    final ResilienceSettings settings;
    final List<Connection> byRank;
    final FixedConnectionStore store;
    final CircuitBreakers breakers;
    final ModelLockouts lockouts;
    final ResilienceEngine engine;
    final ConnectionSelector selector;
    final Route route = new Route(new Provider(BuiltinProviders.OPENAI, call -> new ChatOutcome.Failed(null), "bench"),
            MODEL, PROVIDER + "/" + MODEL);
    final Caller caller = Caller.of("bench-key", false, Set.of(), ClientLiveness.ALWAYS);
    final int expectedRank;
    final int lockoutsInForce;

    Fleet(Scenario scenario) {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        ModelLockoutSettings ml = d.modelLockout();
        settings = ResilienceSettings.of(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(),
                d.streamStallCooldown(), new ModelLockoutSettings(true, ml.errorCodes(), ml.baseCooldownMs(),
                        ml.maxCooldownMs(), ml.maxBackoffSteps(), ml.useExponentialBackoff()));

        // priorities first; rank = position in the selector's walk order (priority, then creation order)
        int[] priority = new int[CONNECTIONS];
        for (int i = 0; i < CONNECTIONS; i++) {
            priority[i] = 1 + (int) ((i * 7_919L + 13) % 100);
        }
        Integer[] walk = new Integer[CONNECTIONS];
        Arrays.setAll(walk, i -> i);
        Arrays.sort(walk, (a, b) -> priority[a] != priority[b] ? Integer.compare(priority[a], priority[b]) : Integer.compare(a, b));
        int[] rankOf = new int[CONNECTIONS];
        for (int r = 0; r < CONNECTIONS; r++) {
            rankOf[walk[r]] = r;
        }

        long now = NOW.toEpochMilli();
        List<Connection> created = new ArrayList<>(CONNECTIONS);
        Connection[] ranked = new Connection[CONNECTIONS];
        for (int i = 0; i < CONNECTIONS; i++) {
            int rank = rankOf[i];
            ConnectionState state = cooling(rank)
                    ? new ConnectionState("unavailable", now + 60_000, "rate limited", "rate_limit_exceeded", "429", 1, 0)
                    : ConnectionState.ACTIVE;
            Connection c = new Connection(String.format("conn-%04d", i), i + 1L, PROVIDER, "key " + i, ProviderClass.APIKEY,
                    "sk-bench-" + i, null, baseUrl(host(rank)), priority[i], true, null, null, false, false, null, null,
                    null, state, now - 86_400_000L, now - 86_400_000L);
            created.add(c);
            ranked[rank] = c;
        }
        byRank = List.of(ranked);
        store = new FixedConnectionStore(created);

        breakers = CircuitBreakers.local(clock, () -> settings, BreakerStore.none());
        lockouts = ModelLockouts.local(clock, () -> settings);
        engine = new ResilienceEngine(new FailureClassifier(clock, ErrorRules.NONE), () -> settings,
                ResilienceEngine.standard(ConnectionCooldowns.local(store, clock, () -> settings), ProviderCooldowns.local(clock, () -> settings), null, lockouts, breakers),
                new QuotaFamilies(List.of()), new StatusRestatement(List.of()), null);
        selector = new ConnectionSelector(store, clock, engine, SessionRouting.NONE);

        // one host's breaker OPEN: the API-key profile's failureThreshold of distinct connections' failures
        BreakerKey open = BreakerKey.forBaseUrl(PROVIDER, baseUrl(OPEN_HOST));
        int threshold = settings.circuitBreaker().forClass(ProviderClass.APIKEY).failureThreshold();
        for (int i = 0; i < threshold; i++) {
            breakers.onFailure(open, ProviderClass.APIKEY, "breaker-witness-" + i, FailureReason.SERVER_ERROR.wireName());
        }
        check(breakers.view(open, ProviderClass.APIKEY).state() == BreakerState.OPEN, "host " + OPEN_HOST + " breaker is not OPEN");

        // ten lockouts per connection on other models: 429 → model scope, 503 → exact scope (ML-1)
        for (Connection c : created) {
            for (int k = 0; k < OTHER_MODELS_PER_CONNECTION; k++) {
                boolean rate = k < OTHER_MODELS_PER_CONNECTION / 2;
                lock(c, "other-model-" + k, rate ? 429 : 503, rate ? FailureReason.RATE_LIMIT_EXCEEDED : FailureReason.SERVER_ERROR);
            }
        }
        int requested = 0;
        for (int r = 0; r < scenario.heldRanks; r++) {
            if (scenario.breakerHoldsItsOwn && (cooling(r) || host(r) == OPEN_HOST)) {
                continue; // held by the cooldown or the breaker, not by a lockout
            }
            lock(byRank.get(r), MODEL, 429, FailureReason.RATE_LIMIT_EXCEEDED);
            requested++;
        }
        lockoutsInForce = lockouts.activeCount();
        check(lockoutsInForce == OTHER_MODEL_LOCKOUTS + requested,
                "expected " + (OTHER_MODEL_LOCKOUTS + requested) + " lockouts in force, found " + lockoutsInForce);

        int first = scenario.heldRanks;
        while (cooling(first) || host(first) == OPEN_HOST) {
            first++;
        }
        expectedRank = first;
        verify(scenario);
    }

    /** One selection as the benchmark does it. */
    Candidate select() {
        return selector.open(route, caller).next();
    }

    private void lock(Connection c, String model, int status, FailureReason reason) {
        ModelLockout l = lockouts.recordFailure(LockoutFailure.builder(PROVIDER, c.id(), model).failure(reason, status).build());
        check(l != null, "lockout not recorded for " + c.id() + " " + model);
    }

    /** Fails the trial unless the walk ends where the scenario says, holding back what it says. */
    private void verify(Scenario scenario) {
        ConnectionSelector.Cursor cursor = selector.open(route, caller);
        Candidate c = cursor.next();
        check(c != null && c.connection() == byRank.get(expectedRank),
                scenario + ": expected rank " + expectedRank + ", selected " + (c == null ? "none" : c.connection().id()));
        List<ConnectionSelector.Excluded> skipped = cursor.excluded();
        check(skipped.size() == expectedRank, scenario + ": " + skipped.size() + " held back, expected " + expectedRank);
        Map<Exclusion.Reason, Integer> why = new EnumMap<>(Exclusion.Reason.class);
        for (ConnectionSelector.Excluded x : skipped) {
            why.merge(x.exclusion().reason(), 1, Integer::sum);
        }
        Map<String, Integer> printable = new TreeMap<>();
        why.forEach((k, v) -> printable.put(k.wireName(), v));
        System.out.println("[fleet] " + scenario + ": " + CONNECTIONS + " connections, " + lockoutsInForce
                + " lockouts in force; the walk selects rank " + expectedRank + " after holding back " + printable);
    }

    static boolean cooling(int rank) {
        return rank % 10 == 1;
    }

    static int host(int rank) {
        return rank % HOSTS;
    }

    static String baseUrl(int host) {
        return "https://h" + host + ".upstream.example:443/v1";
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }
}
