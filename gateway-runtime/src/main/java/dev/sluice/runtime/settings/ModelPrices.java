package dev.sluice.runtime.settings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The operators' per-model prices ({@code modelPrices} of {@code /api/settings}), in US dollars per
 * million tokens, keyed {@code provider/model}: {@code {"input": 3, "output": 15, "cachedInput": 0.3}}.
 * They turn the token totals of {@code GET /api/usage} into a cost; a model without a price costs
 * nothing there (and is flagged as unpriced).
 */
public final class ModelPrices {

    /** No prices. */
    public static final ModelPrices NONE = new ModelPrices(Map.of());
    /** The most models priced (a settings value, not a price list to mirror). */
    public static final int MAX_MODELS = 10_000;

    /**
     * One model's price, US dollars per million tokens.
     *
     * @param input prompt tokens
     * @param output completion tokens (reasoning tokens are completion tokens)
     * @param cachedInput prompt tokens read from the upstream's cache, or null to charge them as input
     */
    public record Price(double input, double output, Double cachedInput) {
        /** Validates. */
        public Price {
            if (!(input >= 0) || !(output >= 0) || cachedInput != null && !(cachedInput >= 0)) {
                throw new IllegalArgumentException("prices must be non-negative numbers");
            }
        }

        /**
         * The cost of some tokens.
         *
         * @param prompt prompt tokens (cached ones included)
         * @param cached cached prompt tokens
         * @param completion completion tokens
         * @return US dollars
         */
        public double cost(long prompt, long cached, long completion) {
            long cachedCounted = Math.min(Math.max(0, cached), Math.max(0, prompt));
            double cachedRate = cachedInput != null ? cachedInput : input;
            return ((prompt - cachedCounted) * input + cachedCounted * cachedRate + completion * output) / 1_000_000d;
        }
    }

    private final Map<String, Price> prices;

    private ModelPrices(Map<String, Price> prices) {
        // in the order the operator wrote them, as GET /api/settings shows them
        this.prices = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(prices));
    }

    /**
     * The price of a model.
     *
     * @param provider the provider
     * @param model the upstream model
     * @return the price, or null when none is set
     */
    public Price of(String provider, String model) {
        return provider == null || model == null ? null : prices.get(provider + "/" + model);
    }

    /** @return the prices by {@code provider/model} */
    public Map<String, Price> all() {
        return prices;
    }

    /**
     * Reads and validates the setting.
     *
     * @param n the JSON value
     * @param path the setting's name, for errors
     * @return the prices
     * @throws SettingsException naming what is wrong
     */
    static ModelPrices read(JsonNode n, String path) {
        if (n == null || n.isNull()) {
            return NONE;
        }
        if (!n.isObject()) {
            throw new SettingsException(path, "'" + path + "' must be an object of \"provider/model\": {\"input\": usd_per_million,"
                    + " \"output\": usd_per_million, \"cachedInput\"?: usd_per_million}.");
        }
        if (n.size() > MAX_MODELS) {
            throw new SettingsException(path, "'" + path + "' prices at most " + MAX_MODELS + " models.");
        }
        Map<String, Price> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : n.properties()) {
            String key = e.getKey();
            String at = path + "." + key;
            int slash = key.indexOf('/');
            if (slash <= 0 || slash == key.length() - 1) {
                throw new SettingsException(at, "'" + at + "': the key must be provider/model.");
            }
            JsonNode p = e.getValue();
            if (!p.isObject()) {
                throw new SettingsException(at, "'" + at + "' must be an object {\"input\", \"output\", \"cachedInput\"?}.");
            }
            for (Map.Entry<String, JsonNode> f : p.properties()) {
                if (!f.getKey().equals("input") && !f.getKey().equals("output") && !f.getKey().equals("cachedInput")) {
                    throw new SettingsException(at + "." + f.getKey(), "'" + at + "." + f.getKey()
                            + "' is not a price field (known: input, output, cachedInput).");
                }
            }
            out.put(key, new Price(number(p.get("input"), at + ".input", true), number(p.get("output"), at + ".output", true),
                    p.has("cachedInput") && !p.get("cachedInput").isNull() ? number(p.get("cachedInput"), at + ".cachedInput", true) : null));
        }
        return new ModelPrices(out);
    }

    private static double number(JsonNode n, String at, boolean required) {
        if (n == null || n.isNull()) {
            if (required) {
                throw new SettingsException(at, "'" + at + "' is required (US dollars per million tokens).");
            }
            return 0;
        }
        if (!n.isNumber() || n.asDouble() < 0 || Double.isInfinite(n.asDouble())) {
            throw new SettingsException(at, "'" + at + "' must be a non-negative number (US dollars per million tokens).");
        }
        return n.asDouble();
    }

    /** @return the setting as JSON */
    ObjectNode write() {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        prices.forEach((k, p) -> {
            ObjectNode o = root.putObject(k).put("input", p.input()).put("output", p.output());
            if (p.cachedInput() != null) {
                o.put("cachedInput", p.cachedInput());
            }
        });
        return root;
    }
}
