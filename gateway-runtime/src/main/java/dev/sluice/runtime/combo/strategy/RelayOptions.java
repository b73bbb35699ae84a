package dev.sluice.runtime.combo.strategy;

import java.util.Map;

/**
 * A {@code context-relay} combo's options (issue 34).
 *
 * @param relayThreshold the share of the new target's context window above which the older turns
 *     are summarised (0 &lt; x ≤ 1; default {@value #DEFAULT_THRESHOLD})
 * @param summaryModel the model (or combo) that writes the summary, routed like a client's request
 * @param keepTurns how many of the latest user turns (a user message and what follows it) are kept
 *     word for word (≥ 1; default {@value #DEFAULT_KEEP_TURNS})
 */
public record RelayOptions(double relayThreshold, String summaryModel, int keepTurns) {

    /** The threshold option. */
    public static final String THRESHOLD = "relayThreshold";
    /** The summary model option. */
    public static final String SUMMARY_MODEL = "summaryModel";
    /** The kept turns option. */
    public static final String KEEP_TURNS = "keepTurns";
    /** The default threshold. */
    public static final double DEFAULT_THRESHOLD = 0.85;
    /** The default kept turns. */
    public static final int DEFAULT_KEEP_TURNS = 1;
    /** The most kept turns. */
    static final int MAX_KEEP_TURNS = 100;

    /**
     * Reads the options.
     *
     * @param options the combo's strategy options
     * @return the options
     * @throws IllegalArgumentException naming the option
     */
    public static RelayOptions from(Map<String, Object> options) {
        double threshold = DEFAULT_THRESHOLD;
        Object t = options.get(THRESHOLD);
        if (t != null) {
            if (!(t instanceof Number n) || !(n.doubleValue() > 0) || n.doubleValue() > 1) {
                throw new IllegalArgumentException("strategyOptions.relayThreshold must be a number above 0 and at most 1");
            }
            threshold = n.doubleValue();
        }
        Object m = options.get(SUMMARY_MODEL);
        if (!(m instanceof String s) || s.isBlank() || s.length() > 256) {
            throw new IllegalArgumentException("strategyOptions.summaryModel is required: the model (provider/model) or combo that"
                    + " writes the summaries");
        }
        int keep = DEFAULT_KEEP_TURNS;
        Object k = options.get(KEEP_TURNS);
        if (k != null) {
            if (!(k instanceof Integer || k instanceof Long) || ((Number) k).longValue() < 1 || ((Number) k).longValue() > MAX_KEEP_TURNS) {
                throw new IllegalArgumentException("strategyOptions.keepTurns must be a whole number from 1 to " + MAX_KEEP_TURNS);
            }
            keep = ((Number) k).intValue();
        }
        return new RelayOptions(threshold, s.strip(), keep);
    }
}
