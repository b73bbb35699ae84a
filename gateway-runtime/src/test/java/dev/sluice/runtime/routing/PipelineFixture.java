package dev.sluice.runtime.routing;

import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboStore;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.combo.flow.ComboFlows;
import dev.sluice.runtime.combo.routing.AutoCombos;
import dev.sluice.runtime.entry.RequestRouter;
import dev.sluice.runtime.combo.flow.StepUsage;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.BreakerView;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import dev.sluice.runtime.resilience.gate.TurnSteps;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.JdbcBreakerStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.runtime.stream.StreamRules;
import dev.sluice.runtime.upstream.EgressRoutes;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The request pipeline without a server: the real routing, combo and resilience classes over a
 * fresh SQLite connection store, a hand-moved clock, and {@link ScriptedExecutor}s standing in for
 * upstreams (provider {@code acme} with model {@code m1}, provider {@code beta} with {@code m2}).
 */
final class PipelineFixture implements AutoCloseable {

    final RoutingFixture store;
    final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(ResilienceSettings.DEFAULTS);
    final AtomicReference<StreamRules> streamRules = new AtomicReference<>(StreamRules.DEFAULTS);
    final ScriptedExecutor acme = new ScriptedExecutor();
    final ScriptedExecutor beta = new ScriptedExecutor();
    final CircuitBreakers breakers;
    final ConnectionCooldowns cooldowns;
    final ModelLockouts lockouts;
    final ConnectionGates gates;
    final Dispatcher dispatcher;
    final RequestRouter router;
    final List<ProxyLogRow> log = new CopyOnWriteArrayList<>();
    final Map<String, Combo> combos = new LinkedHashMap<>();
    /** The model tried last when every target of a combo failed (OF-3); none unless a test sets one. */
    final AtomicReference<String> emergencyFallback = new AtomicReference<>();
    /** The combo router's waits (CO-3), ms: each moved the clock instead of sleeping. */
    final List<Long> comboWaits = new CopyOnWriteArrayList<>();
    private final EgressRoutes egress;

    PipelineFixture(Path dir, Duration attemptTimeout) {
        store = new RoutingFixture(dir);
        breakers = CircuitBreakers.local(store.clock, settings::get, dev.sluice.runtime.resilience.breaker.BreakerStore.rows(new JdbcBreakerStore(store.db)));
        cooldowns = ConnectionCooldowns.local(store.store, store.clock, settings::get);
        lockouts = ModelLockouts.local(store.clock, settings::get);
        ProviderCooldowns providerCooldowns = ProviderCooldowns.local(store.clock, settings::get);
        ResilienceEngine engine = new ResilienceEngine(new FailureClassifier(store.clock, new ErrorRules(List.of(), Set.of(), Set.of(),
                List::of, Set.of())), settings::get,
                ResilienceEngine.standard(cooldowns, providerCooldowns, null, lockouts, breakers),
                new QuotaFamilies(List.of()), new StatusRestatement(List.of()), new QuotaObservations(store.clock));
        ProviderCatalog catalog = new ProviderCatalog(List.of(
                new Provider(descriptor("acme", "m1"), acme, Provider.BUILT_IN),
                new Provider(descriptor("beta", "m2"), beta, Provider.BUILT_IN)), acme, store.store, Map.of());
        ModelResolver resolver = new ModelResolver(catalog);
        ConnectionSelector selector = new ConnectionSelector(store.store, store.clock, engine, SessionRouting.NONE);
        gates = new ConnectionGates(store.clock, n -> { }, TurnSteps.NONE);
        AdmissionPolicy policy = new AdmissionPolicy(settings::get, null, json -> Map.of(), Set.of());
        UpstreamHttp unused = request -> {
            throw new AssertionError("fake executors send nothing");
        };
        egress = EgressRoutes.create(unused, Duration.ofSeconds(1), null, store.clock);
        dispatcher = Dispatcher.builder(selector, engine, log::add, store.clock, egress, gates, policy, attemptTimeout).build();
        ComboStore comboStore = new MapComboStore(combos);
        ComboRouter comboRouter = new ComboRouter(comboStore, resolver, selector, ComboStrategies.builtIn()::find, store.clock,
                settings::get, ms -> {
                    comboWaits.add(ms);
                    store.advance(Duration.ofMillis(ms));
                }, emergencyFallback::get, new QuotaObservations(store.clock), ComboRouter.ModelFactsLookup.NONE,
                AutoCombos.NONE);
        ComboFlows flows = new ComboFlows(comboRouter, ComboRouter.ModelFactsLookup.NONE, StepUsage.NONE, store.clock);
        router = new RequestRouter(resolver, new RouteWalks(dispatcher, attemptTimeout, streamRules::get,
                dev.sluice.runtime.io.AnswerBuffers.DEFAULTS), flows, model -> model);
    }

    PipelineFixture(Path dir) {
        this(dir, Duration.ofSeconds(30));
    }

    private static ProviderDescriptor descriptor(String id, String model) {
        return ProviderDescriptor.openAiCompatible(id, id, ProviderClass.APIKEY, "https://" + id + ".invalid", List.of(ModelInfo.chat(model)));
    }

    Connection add(String provider, String name, int priority) {
        return store.add(provider, name, priority);
    }

    Connection addCapped(String provider, String name, int priority, int maxConcurrent) {
        return store.store.create(new NewConnection(provider, name, ProviderClass.APIKEY, "sk-" + name, null, null, priority, true,
                maxConcurrent, null, false, null, null, null));
    }

    Connection reload(Connection c) {
        return store.store.find(c.id()).orElseThrow();
    }

    BreakerView breaker(String provider) {
        return breakers.view(ConnectionSelector.breakerKey(provider, "https://" + provider + ".invalid"), ProviderClass.APIKEY);
    }

    void combo(String name, String strategy, ComboTarget... targets) {
        combo(name, strategy, Map.of(), targets);
    }

    void combo(String name, String strategy, Map<String, Object> options, ComboTarget... targets) {
        combos.put(name, new Combo(name, strategy, options, List.of(targets), store.now(), store.now()));
    }

    static ClientRequest chat(String model, boolean stream) {
        return new ClientRequest.Chat(new ChatRequest(model, List.of(ChatMessage.text(Role.USER, "hello")), null, null, stream,
                null, null, null, null, null), Map.of());
    }

    Outcome route(ClientRequest request) {
        return router.route(request, Caller.of("k1", false, Set.of(), ClientLiveness.ALWAYS), "req-1");
    }

    Outcome route(ClientRequest request, Caller caller) {
        return router.route(request, caller, "req-1");
    }

    /** Routes as {@link #route(ClientRequest)}, counting the request's attempts on {@code tally} (issue 35 §4). */
    Outcome route(ClientRequest request, AttemptTally tally) {
        return router.route(request, Caller.of("k1", false, Set.of(), ClientLiveness.ALWAYS), "req-1", tally);
    }

    @Override
    public void close() {
        dispatcher.close();
        egress.close();
        store.close();
    }

    /** Combos kept in a map. */
    private record MapComboStore(Map<String, Combo> combos) implements ComboStore {
        @Override
        public List<Combo> list() {
            return List.copyOf(combos.values());
        }

        @Override
        public Optional<Combo> find(String name) {
            return Optional.ofNullable(combos.get(name));
        }

        @Override
        public Optional<Combo> create(Combo combo) {
            return Optional.ofNullable(combos.putIfAbsent(combo.name(), combo) == null ? combo : null);
        }

        @Override
        public Optional<Combo> update(Combo combo) {
            combos.put(combo.name(), combo);
            return Optional.of(combo);
        }

        @Override
        public boolean delete(String name) {
            return combos.remove(name) != null;
        }
    }
}
