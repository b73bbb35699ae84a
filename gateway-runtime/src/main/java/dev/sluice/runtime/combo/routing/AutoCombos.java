package dev.sluice.runtime.combo.routing;

import dev.sluice.runtime.combo.Combo;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.combo.strategy.ComboStrategies;
import dev.sluice.runtime.routing.Caller;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The virtual combos of issue 34: {@code auto}, {@code auto/fast}, {@code auto/cheap} and
 * {@code auto/smart}, each the {@code auto} strategy (with the preset its name says) over every
 * chat model the calling key may use — the models {@code GET /v1/models} lists for it, combos and
 * aliases left out, at most {@value #MAX_TARGETS} in listing order. They exist unless
 * {@code combos.autoCombos} is false; a stored combo named {@code auto} wins over the virtual one.
 * Built per request from memory (no I/O): the cost is one listing of the caller's models.
 */
public final class AutoCombos {

    /** The most models a virtual combo spans (a stored combo's limit). */
    public static final int MAX_TARGETS = 100;
    /** Its {@code createdAt}/{@code updatedAt}: a virtual combo was never stored. */
    static final long VIRTUAL = -1;

    /** Name to preset. */
    public static final Map<String, String> NAMES = Map.of("auto", "balanced", "auto/fast", "fast", "auto/cheap", "cheap",
            "auto/smart", "smart");

    /** No virtual combos. */
    public static final AutoCombos NONE = new AutoCombos(() -> false, caller -> List.of());

    private final BooleanSupplier enabled;
    private final Function<Caller, List<String>> models;

    /**
     * Creates the virtual combos.
     *
     * @param enabled whether they exist ({@code combos.autoCombos})
     * @param models the chat models a caller may use, {@code provider/model}, in listing order
     */
    public AutoCombos(BooleanSupplier enabled, Function<Caller, List<String>> models) {
        this.enabled = enabled;
        this.models = models;
    }

    /** @return whether the virtual combos exist */
    public boolean enabled() {
        return enabled.getAsBoolean();
    }

    /**
     * The virtual combo a model name denotes for a caller.
     *
     * @param model the request's model
     * @param caller the caller
     * @return the combo, or empty when the name is not one, they are off, or the caller may use no model
     */
    public Optional<Combo> find(String model, Caller caller) {
        String preset = model == null ? null : NAMES.get(model);
        if (preset == null || !enabled.getAsBoolean()) {
            return Optional.empty();
        }
        List<ComboTarget> targets = new ArrayList<>();
        for (String m : models.apply(caller)) {
            if (targets.size() == MAX_TARGETS) {
                break;
            }
            targets.add(new ComboTarget(m, null, null, null, null));
        }
        if (targets.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Combo(model, ComboStrategies.AUTO, Map.of("preset", preset), targets, VIRTUAL, VIRTUAL));
    }

    /** Whether a combo is one of these. */
    static boolean isVirtual(Combo combo) {
        return combo.createdAt() == VIRTUAL && combo.updatedAt() == VIRTUAL;
    }
}
