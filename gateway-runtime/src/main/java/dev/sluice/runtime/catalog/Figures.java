package dev.sluice.runtime.catalog;

import dev.sluice.api.ModelFacts;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The six figures of a model by name, read from plain values (JSON numbers, or the text of a
 * config file) and written back: {@code contextWindow}, {@code maxOutputTokens} and {@code tier}
 * are whole numbers; {@code inputPerMillion}, {@code outputPerMillion} and
 * {@code cachedInputPerMillion} are US dollars. A null value leaves the figure unknown.
 */
final class Figures {

    static final String CONTEXT_WINDOW = "contextWindow";
    static final String MAX_OUTPUT_TOKENS = "maxOutputTokens";
    static final String INPUT = "inputPerMillion";
    static final String OUTPUT = "outputPerMillion";
    static final String CACHED_INPUT = "cachedInputPerMillion";
    static final String TIER = "tier";

    /** Every figure's name, in the order answers show them. */
    static final List<String> NAMES = List.of(CONTEXT_WINDOW, MAX_OUTPUT_TOKENS, INPUT, OUTPUT, CACHED_INPUT, TIER);

    private Figures() {
    }

    /**
     * Reads one model's figures.
     *
     * @param figures name to value
     * @param at the path of the model, for errors
     * @return the facts
     * @throws CatalogException naming the figure
     */
    static ModelFacts read(Map<String, ?> figures, String at) {
        ModelFacts.Builder b = ModelFacts.builder();
        for (Map.Entry<String, ?> e : figures.entrySet()) {
            String path = at + "." + e.getKey();
            Object v = e.getValue();
            try {
                switch (e.getKey()) {
                    case CONTEXT_WINDOW -> b.contextWindow(whole(v, path, 1, 100_000_000));
                    case MAX_OUTPUT_TOKENS -> b.maxOutputTokens(whole(v, path, 1, 100_000_000));
                    case TIER -> {
                        Long t = whole(v, path, 0, 100);
                        b.tier(t == null ? null : t.intValue());
                    }
                    case INPUT -> b.inputPerMillion(usd(v, path));
                    case OUTPUT -> b.outputPerMillion(usd(v, path));
                    case CACHED_INPUT -> b.cachedInputPerMillion(usd(v, path));
                    default -> throw new CatalogException(path, "'" + path + "' is not a model figure (known: " + String.join(", ", NAMES)
                            + ").");
                }
            } catch (CatalogException ce) {
                throw ce;
            } catch (IllegalArgumentException iae) {
                throw new CatalogException(path, "'" + path + "': " + iae.getMessage() + ".");
            }
        }
        return b.build();
    }

    /**
     * The known figures of some facts.
     *
     * @param f the facts
     * @return name to value, unknown ones left out, in {@link #NAMES} order
     */
    static Map<String, Object> known(ModelFacts f) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String name : NAMES) {
            Object v = of(f, name);
            if (v != null) {
                out.put(name, v);
            }
        }
        return out;
    }

    /**
     * One figure.
     *
     * @param f the facts
     * @param name the figure's name
     * @return its value, or null when unknown
     */
    static Object of(ModelFacts f, String name) {
        return switch (name) {
            case CONTEXT_WINDOW -> f.contextWindow();
            case MAX_OUTPUT_TOKENS -> f.maxOutputTokens();
            case INPUT -> f.inputPerMillion();
            case OUTPUT -> f.outputPerMillion();
            case CACHED_INPUT -> f.cachedInputPerMillion();
            case TIER -> f.tier();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /**
     * Sets one figure.
     *
     * @param b the builder
     * @param name the figure's name
     * @param v its value (of the type {@link #of} gives)
     */
    static void set(ModelFacts.Builder b, String name, Object v) {
        switch (name) {
            case CONTEXT_WINDOW -> b.contextWindow((Long) v);
            case MAX_OUTPUT_TOKENS -> b.maxOutputTokens((Long) v);
            case INPUT -> b.inputPerMillion((Double) v);
            case OUTPUT -> b.outputPerMillion((Double) v);
            case CACHED_INPUT -> b.cachedInputPerMillion((Double) v);
            case TIER -> b.tier((Integer) v);
            default -> throw new IllegalArgumentException(name);
        }
    }

    private static Long whole(Object v, String path, long min, long max) {
        if (v == null) {
            return null;
        }
        BigDecimal d = decimal(v, path, "a whole number of tokens");
        try {
            long n = d.longValueExact();
            if (n < min || n > max) {
                throw new CatalogException(path, "'" + path + "' must be a whole number from " + min + " to " + max + ".");
            }
            return n;
        } catch (ArithmeticException notWhole) {
            throw new CatalogException(path, "'" + path + "' must be a whole number from " + min + " to " + max + ".");
        }
    }

    private static Double usd(Object v, String path) {
        if (v == null) {
            return null;
        }
        BigDecimal d = decimal(v, path, "a non-negative number of US dollars per million tokens");
        if (d.signum() < 0 || d.compareTo(BigDecimal.valueOf(1_000_000)) > 0) {
            throw new CatalogException(path, "'" + path + "' must be a non-negative number of US dollars per million tokens (at most"
                    + " 1000000).");
        }
        return d.doubleValue();
    }

    private static BigDecimal decimal(Object v, String path, String what) {
        try {
            if (v instanceof Number n && !(n instanceof Double dd && (dd.isNaN() || dd.isInfinite()))) {
                return new BigDecimal(n.toString());
            }
            if (v instanceof String s && !s.isBlank()) {
                return new BigDecimal(s.strip());
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new CatalogException(path, "'" + path + "' must be " + what + ".");
    }
}
