package dev.sluice.api.combo;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * What a {@link ComboStrategy} knows about the request it orders targets for.
 *
 * @param comboName the combo's name (strategies that keep state, e.g. a round-robin position, key
 *     it by this name)
 * @param options the combo's strategy options (plain JSON values), never null
 * @param random the random source to use (seeded in tests)
 * @param nowMillis the current time, epoch ms
 * @param request what is known of the request ({@link ComboRequest#NONE} when nothing is)
 */
@dev.sluice.api.Experimental("grows with the router; read it, do not construct it")
public record ComboContext(String comboName, Map<String, Object> options, RandomGenerator random, long nowMillis, ComboRequest request) {

    /** Validates and copies. */
    public ComboContext {
        requireNonNull(comboName, "comboName is null");
        requireNonNull(random, "random is null");
        options = options == null ? Map.of() : Map.copyOf(options);
        request = request == null ? ComboRequest.NONE : request;
    }

    /**
     * A context that knows nothing of the request (the form of the first release).
     *
     * @param comboName the combo's name
     * @param options the strategy options
     * @param random the random source
     * @param nowMillis the current time, epoch ms
     */
    public ComboContext(String comboName, Map<String, Object> options, RandomGenerator random, long nowMillis) {
        this(comboName, options, random, nowMillis, ComboRequest.NONE);
    }
}
