package dev.sluice.runtime.combo;

import java.util.List;
import java.util.Optional;

/**
 * Combos (SPEC DM-3 {@code combos}). Reads come from an in-memory snapshot refreshed on every
 * write; writes are durable before they return.
 */
public interface ComboStore {

    /**
     * Every combo, by name.
     *
     * @return an immutable snapshot
     */
    List<Combo> list();

    /**
     * One combo.
     *
     * @param name the name (case-sensitive)
     * @return the combo, or empty
     */
    Optional<Combo> find(String name);

    /**
     * Stores a new combo.
     *
     * @param combo the combo (its timestamps are set by the store)
     * @return the stored combo, or empty when the name is taken
     */
    Optional<Combo> create(Combo combo);

    /**
     * Replaces a combo's strategy, options and targets.
     *
     * @param combo the new combo (same name)
     * @return the stored combo, or empty when there is no combo of that name
     */
    Optional<Combo> update(Combo combo);

    /**
     * Deletes a combo.
     *
     * @param name the name
     * @return true when it existed
     */
    boolean delete(String name);
}
