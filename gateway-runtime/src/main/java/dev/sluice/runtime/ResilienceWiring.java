package dev.sluice.runtime;

import dev.sluice.api.rules.ErrorRule;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.plugin.LoadedPlugin;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.breaker.shared.SharedCircuitBreakers;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.cooldown.shared.SharedConnectionCooldowns;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.TurnSteps;
import dev.sluice.runtime.resilience.gate.shared.SharedTurns;
import dev.sluice.runtime.resilience.cooldown.EgressLocks;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.shared.SharedModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.resilience.window.shared.SharedProviderCooldowns;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.gate.QuotaObservations;
import dev.sluice.runtime.resilience.engine.Resilience;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.routing.BuiltinProviders;
import dev.sluice.runtime.routing.Provider;
import dev.sluice.runtime.settings.ResilienceEnvironment;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.store.JdbcBreakerStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

/**
 * The composition root's resilience (issue 35): the mechanisms (breakers, cooldowns, lockouts,
 * provider windows) on their shared boards, the classifier with every rule, the engine over them,
 * and the caps and request queue in front of each connection.
 *
 * @param resilience the four mechanisms (admin views, cluster events)
 * @param engine what a candidate is held for, what a failure and a success do
 * @param quotas the quota figures upstreams announced (strategies read them)
 * @param admission what limits a request on a connection (§12, §14)
 * @param gates the caps and queue per connection
 * @param queueWaits where the gates report queue waits (the metrics, bound once they exist)
 */
record ResilienceWiring(Resilience resilience, ResilienceEngine engine, QuotaObservations quotas, AdmissionPolicy admission,
        ConnectionGates gates, AtomicReference<LongConsumer> queueWaits) {

    static ResilienceWiring create(SluiceConfig config, InstantSource clock, StorageWiring storage, PluginWiring plugins,
            SharedState shared, Function<String, Map<String, Object>> parseObject) {
        ResilienceSettingsService settings = storage.resilienceSettings();
        // issue 35: a mechanism in shared mode is its local self wrapped by the decorator beside its board
        ProviderCooldowns windows = ProviderCooldowns.local(clock, settings);
        CircuitBreakers breakers = CircuitBreakers.local(clock, settings, BreakerStore.rows(new JdbcBreakerStore(storage.db())));
        ModelLockouts lockouts = ModelLockouts.local(clock, settings);
        if (shared.configured()) {
            windows = SharedProviderCooldowns.over(windows, shared.windows(), shared.events(), settings);
            breakers = SharedCircuitBreakers.over(breakers, shared.breakers(), settings);
            lockouts = SharedModelLockouts.over(lockouts, shared.lockouts(), clock, settings);
        }
        ConnectionCooldowns cooldowns = ConnectionCooldowns.local(storage.connections(), clock, settings);
        if (shared.configured()) {
            cooldowns = SharedConnectionCooldowns.over(cooldowns, shared.cooldowns());
        }
        Resilience resilience = new Resilience(breakers, cooldowns, lockouts, windows);
        PluginRegistry registry = plugins.registry();
        QuotaObservations quotas = new QuotaObservations(clock);
        EgressLocks egressLocks = new EgressLocks(EgressLocks.family(registry.egressBucketing(), config.egressLockProviders()),
                storage.connections(), storage.proxyLogs(), resilience.cooldowns(), clock);
        // a new mechanism is one line in ResilienceEngine.standard
        ResilienceEngine engine = new ResilienceEngine(new FailureClassifier(clock, errorRules(plugins, storage)), settings,
                ResilienceEngine.standard(resilience.cooldowns(), resilience.providerCooldowns(), egressLocks, resilience.lockouts(),
                        resilience.breakers()),
                new QuotaFamilies(registry.quotaFamilies()), new StatusRestatement(registry.restatementRules()), quotas);
        AdmissionPolicy admission = new AdmissionPolicy(settings,
                AdmissionPolicy.autoEnableFromEnv(config.resilienceEnv().get(ResilienceEnvironment.AUTO_ENABLE)), parseObject,
                registry.modelScopedLimits());
        AtomicReference<LongConsumer> queueWaits = new AtomicReference<>(nanos -> { });
        TurnSteps turns = TurnSteps.NONE;
        if (shared.configured()) {
            turns = SharedTurns.over(shared.gates(), clock);
        }
        ConnectionGates gates = new ConnectionGates(clock, nanos -> queueWaits.get().accept(nanos), turns);
        return new ResilienceWiring(resilience, engine, quotas, admission, gates, queueWaits);
    }

    /** @return every mechanism that keeps state of its own: another instance's change reaches each (NF-6) */
    List<Mechanism> synced() {
        List<Mechanism> synced = new ArrayList<>(engine.mechanisms());
        synced.add(gates);
        return synced;
    }

    /** SPEC §16: the built-in providers' rules (minimax), then the plugins'; a plugin's rules for its own providers first (issue 27). */
    private static ErrorRules errorRules(PluginWiring plugins, StorageWiring storage) {
        Set<String> fullText = new HashSet<>();
        Set<String> honourScope = new HashSet<>();
        for (Provider p : plugins.providers()) {
            if (p.descriptor().fullTextErrorRules()) {
                fullText.add(p.id());
            }
            if (p.descriptor().honorsRuleScope()) {
                honourScope.add(p.id());
            }
        }
        List<ErrorRule> shipped = new ArrayList<>(BuiltinProviders.ERROR_RULES);
        shipped.addAll(plugins.registry().errorRules());
        Set<ErrorRule> ownProviderRules = new HashSet<>();
        for (LoadedPlugin p : plugins.registry().plugins()) {
            Set<String> own = p.providers().stream().map(d -> d.id()).collect(Collectors.toSet());
            p.errorRules().stream().filter(r -> own.contains(r.provider())).forEach(ownProviderRules::add);
        }
        return new ErrorRules(shipped, fullText, honourScope, storage.generalSettings()::providerErrorRules, ownProviderRules);
    }
}
