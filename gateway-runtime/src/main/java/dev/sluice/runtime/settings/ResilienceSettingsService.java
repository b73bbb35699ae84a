package dev.sluice.runtime.settings;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.store.SettingsStore;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The effective resilience settings (SE-1, SE-2, SE-4): the configured tree (defaults, config
 * file, environment) with the operator's PATCH documents on top. The persisted layer is the
 * accumulated PATCH (deep-merged, stored under {@link #STORE_KEY}), not the whole tree, so a later
 * change of the file or the environment still shows through every key the operator never
 * patched. A PATCH applies at once, without restart: mechanisms read {@link #get()} (a volatile
 * read) on every decision, or take this object as their {@code Supplier}.
 */
public final class ResilienceSettingsService implements Supplier<ResilienceSettings> {

    /** The settings key of the accumulated PATCH document. */
    public static final String STORE_KEY = "resilience";
    /** Warnings go to the log, as a running server reports what it dropped from a persisted document. */
    public static final Consumer<String> WARN_IN_LOG = ResilienceSettingsLayers::warn;

    /** One consistent view: the typed settings, their tree, and the PATCH document they came from. */
    private record State(ResilienceSettings settings, ObjectNode tree, ObjectNode accumulated) {
    }

    private final ObjectNode configured;
    private final SettingsStore store;
    private final Consumer<String> warn;
    private final ObjectMapper mapper = new ObjectMapper();
    private final ReentrantLock patches = new ReentrantLock();
    private volatile State state;

    /**
     * Creates the service over the configured layers and the persisted PATCH document. A persisted
     * document that is unreadable, names unknown keys or holds values that are now out of bounds
     * does not stop start-up: the bad parts are dropped or clamped with a warning.
     *
     * @param configured the settings from defaults, config file and environment
     *     ({@link ResilienceSettingsLayers#configured})
     * @param store where the PATCH document is kept
     * @param warn told what was dropped or clamped ({@link #WARN_IN_LOG} but in tests)
     */
    public ResilienceSettingsService(ResilienceSettings configured, SettingsStore store, Consumer<String> warn) {
        this.configured = ResilienceSettingsCodec.toJson(requireNonNull(configured, "configured is null"));
        this.store = requireNonNull(store, "store is null");
        this.warn = warn;
        this.state = load();
    }

    private State load() {
        ObjectNode accumulated = Schema.NODES.objectNode();
        readPersisted().ifPresent(p -> ResilienceSettingsCodec.mergeLenient(accumulated, p, path -> "persisted setting " + path, warn));
        ObjectNode tree = this.configured.deepCopy();
        JsonMerge.overlay(tree, accumulated);
        ResilienceSettingsCodec.clampRules(tree, warn);
        ObjectNode valid = ResilienceSettingsCodec.validate(tree);
        return new State(ResilienceSettingsCodec.read(valid), valid, accumulated);
    }

    /**
     * Re-reads the persisted PATCH document (another instance sharing the database changed it)
     * and swaps the settings atomically, like a PATCH.
     */
    public void reload() {
        patches.lock();
        try {
            state = load();
        } finally {
            patches.unlock();
        }
    }

    private Optional<JsonNode> readPersisted() {
        Optional<String> text = store.get(STORE_KEY);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            JsonNode doc = mapper.readTree(text.get());
            if (doc != null && doc.isObject()) {
                return Optional.of(doc);
            }
        } catch (JsonProcessingException e) {
            // reported below
        }
        warn.accept("persisted setting '" + STORE_KEY + "' is not a JSON object; ignored until the next PATCH replaces it");
        return Optional.empty();
    }

    /**
     * The effective settings.
     *
     * @return the current tree; cheap (one volatile read)
     */
    @Override
    public ResilienceSettings get() {
        return state.settings();
    }

    /**
     * The effective settings as JSON ({@code GET /api/resilience}).
     *
     * @return a copy of the whole tree
     */
    public ObjectNode tree() {
        return state.tree().deepCopy();
    }

    /**
     * The accumulated PATCH document, as persisted.
     *
     * @return a copy
     */
    ObjectNode accumulated() {
        return state.accumulated().deepCopy();
    }

    /**
     * Applies a PATCH ({@code PATCH /api/resilience}, SE-4): deep-merges the body into the
     * operator's document (objects key by key, scalars and arrays replaced, {@code null} reverts a
     * key to the configured value), checks the resulting tree as a whole, persists the document and
     * swaps the settings atomically. On any error nothing changes. Patches are serialized.
     *
     * @param body the body, a JSON object
     * @return the new settings
     * @throws SettingsException naming the offending path when the body or the result is invalid
     */
    public ResilienceSettings patch(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new SettingsException(null, "The body must be a JSON object of resilience settings to change.");
        }
        ResilienceSettingsCodec.checkKeys(body);
        patches.lock();
        try {
            ObjectNode accumulated = state.accumulated().deepCopy();
            JsonMerge.accumulate(accumulated, body);
            ObjectNode tree = configured.deepCopy();
            JsonMerge.overlay(tree, accumulated);
            ObjectNode valid = ResilienceSettingsCodec.validate(tree, body, warn);
            ResilienceSettings settings = ResilienceSettingsCodec.read(valid);
            store.put(STORE_KEY, mapper.writeValueAsString(accumulated));
            state = new State(settings, valid, accumulated);
            return settings;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the resilience settings document", e);
        } finally {
            patches.unlock();
        }
    }
}
