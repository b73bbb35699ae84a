package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.util.List;

/**
 * One top-level key of the resilience tree (SE-4): its schema, its cross-field rules and its
 * mapping to the typed record. A new section (e.g. {@code requestQueue}) is one implementation
 * plus one entry in {@link ResilienceSettingsCodec}'s list and one component of
 * {@link ResilienceSettings}.
 *
 * @param <T> the section's record
 */
interface Section<T> {

    /**
     * The top-level key.
     *
     * @return e.g. {@code modelLockout}
     */
    String name();

    /**
     * The shape and bounds of the section.
     *
     * @return the schema
     */
    Schema.Obj schema();

    /**
     * Rules between fields, checked after every merge.
     *
     * @return the rules, empty by default
     */
    default List<CrossRule> rules() {
        return List.of();
    }

    /**
     * The section's value in a settings tree.
     *
     * @param settings the tree
     * @return the section
     */
    T of(ResilienceSettings settings);

    /**
     * Reads a section that has passed the schema and the rules.
     *
     * @param valid the section's object, complete
     * @return the record
     */
    T read(ObjectNode valid);

    /**
     * Writes the section as JSON, with exactly the schema's keys.
     *
     * @param value the record
     * @return the object
     */
    ObjectNode write(T value);
}
