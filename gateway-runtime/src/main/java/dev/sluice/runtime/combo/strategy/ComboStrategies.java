package dev.sluice.runtime.combo.strategy;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.combo.ComboStrategy;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The combo strategies a gateway knows (SPEC CO-2), by name: the built-in ones and those plugins
 * contribute. Immutable; {@link #with(List)} returns a new registry. A combo names a strategy
 * exactly (names are lower case).
 *
 * <p>Stateful strategies keep their per-combo state in their instance, so each {@link #builtIn()}
 * call yields fresh state; a gateway creates one registry and shares it.
 */
public final class ComboStrategies {

    private static final Pattern NAME = Pattern.compile("[a-z0-9-]+");

    /** Other names of built-in strategies (issue 34: the names OmniRoute's users know them by). */
    static final Map<String, String> ALIASES = Map.of(
            "weekly-reset", ResetWindowStrategy.NAME,
            "reset-window-order", ResetWindowStrategy.NAME,
            "context", ContextOptimizedStrategy.NAME);

    private final Map<String, ComboStrategy> byName;

    private ComboStrategies(Map<String, ComboStrategy> byName) {
        this.byName = Collections.unmodifiableMap(byName);
    }

    /**
     * A registry of the built-in strategies: {@code priority}, {@code fill-first}, {@code weighted},
     * {@code round-robin}, {@code random}, {@code strict-random}, {@code p2c}, {@code least-used},
     * {@code cost-optimized}, {@code lkgp}, {@code reset-aware}, {@code headroom}, {@code quota-weighted},
     * {@code quota-share}, {@code reset-window} (also named {@code weekly-reset} and
     * {@code reset-window-order}), {@code cache-optimized}, {@code context-optimized} (also named
     * {@code context}), {@code auto}, {@code context-relay}, {@code pipeline}, {@code fusion}.
     *
     * @return a new registry with fresh strategy state, round-robin's turns in this instance's memory
     */
    public static ComboStrategies builtIn() {
        return builtIn(RoundRobinTurns.local());
    }

    /**
     * The built-in strategies, {@code round-robin} keeping its turns where {@code turns} says.
     *
     * @param turns where round-robin's previous starts live (shared by the instances in shared mode)
     * @return a new registry with fresh strategy state
     */
    public static ComboStrategies builtIn(RoundRobinTurns turns) {
        return new ComboStrategies(new LinkedHashMap<>()).with(List.of(new PriorityStrategy(), new FillFirstStrategy(),
                new WeightedStrategy(), new RoundRobinStrategy(turns), new RandomStrategy(), new StrictRandomStrategy(),
                new PowerOfTwoChoicesStrategy(), new LeastUsedStrategy(), new CostOptimizedStrategy(), new LastKnownGoodStrategy(),
                new ResetAwareStrategy(), new HeadroomStrategy(), new QuotaWeightedStrategy(), new QuotaShareStrategy(),
                new ResetWindowStrategy(), new CacheOptimizedStrategy(), new ContextOptimizedStrategy(), new AutoStrategy(),
                new ContextRelayStrategy(), new PipelineStrategy(), new FusionStrategy()));
    }

    /**
     * This registry plus contributed strategies, in the given order.
     *
     * @param contributed the strategies to add (e.g. plugins' {@code comboStrategies()})
     * @return a new registry
     * @throws IllegalArgumentException when a name is malformed or already taken (the message names
     *     both strategies' classes)
     */
    public ComboStrategies with(List<ComboStrategy> contributed) {
        Map<String, ComboStrategy> all = new LinkedHashMap<>(byName);
        for (ComboStrategy strategy : List.copyOf(contributed)) {
            String name = requireNonNull(strategy.name(), () -> "combo strategy " + origin(strategy) + " has no name");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("combo strategy " + origin(strategy) + " has the name '" + name
                        + "'; names are lower case letters, digits and '-'");
            }
            if (ALIASES.containsKey(name)) {
                throw new IllegalArgumentException("combo strategy " + origin(strategy) + " has the name '" + name
                        + "', which names the built-in strategy '" + ALIASES.get(name) + "'");
            }
            ComboStrategy taken = all.putIfAbsent(name, strategy);
            if (taken != null) {
                throw new IllegalArgumentException("combo strategy '" + name + "' of " + origin(strategy)
                        + " duplicates the one of " + origin(taken));
            }
        }
        return new ComboStrategies(all);
    }

    /**
     * The strategy of a name or of an alias ({@link #aliases()}).
     *
     * @param name the name, matched exactly
     * @return the strategy, or empty
     */
    public Optional<ComboStrategy> find(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(byName.get(ALIASES.getOrDefault(name, name)));
    }

    /** The strategy of the virtual {@code auto} combos (issue 34). */
    public static final String AUTO = AutoStrategy.NAME;

    /**
     * Other names of built-in strategies, each to the name it stands for; a combo may name either.
     *
     * @return alias to name
     */
    public Map<String, String> aliases() {
        return ALIASES;
    }

    /**
     * The known names, built-in ones first, then contributions in the order they were added.
     *
     * @return an immutable set
     */
    public Set<String> names() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(byName.keySet()));
    }

    /**
     * Tells every strategy to drop its state for a combo (deleted, or its targets replaced); a
     * strategy that throws is logged and skipped.
     *
     * @param comboName the combo's name
     */
    public void forget(String comboName) {
        for (ComboStrategy s : byName.values()) {
            try {
                s.forget(comboName);
            } catch (RuntimeException e) {
                System.getLogger(ComboStrategies.class.getName()).log(System.Logger.Level.WARNING,
                        "combo strategy " + s.name() + " failed to forget combo " + comboName + ": " + e);
            }
        }
    }

    private static String origin(ComboStrategy strategy) {
        Class<?> type = strategy.getClass();
        Module module = type.getModule();
        return type.getName() + (module.isNamed() ? " (module " + module.getName() + ")" : "");
    }
}
