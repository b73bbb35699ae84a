package dev.sluice.api.combo;

import java.util.function.LongSupplier;

/**
 * What a {@link ComboStrategy} may know about the request it orders targets for (issue 34): a hash
 * of its prompt's prefix, its estimated input tokens and the output it asks for. The gateway
 * computes a figure only when a strategy asks for it, once per request; a strategy that reads none
 * costs nothing. Build one with {@link #builder()} (tests, plugins' test kits).
 */
@dev.sluice.api.Experimental("combo strategies are new; the facts of a request may grow")
public final class ComboRequest {

    /** A request the gateway knows nothing about (no prefix, unknown size). */
    public static final ComboRequest NONE = builder().build();

    /** {@link #estimatedInputTokens()} when it is not known. */
    public static final long UNKNOWN = -1;

    private final LongSupplier prefix;
    private final LongSupplier input;
    private final Integer maxOutputTokens;
    private long prefixValue;
    private boolean prefixKnown;
    private long inputValue;
    private boolean inputKnown;

    private ComboRequest(Builder b) {
        this.prefix = b.prefix;
        this.input = b.input;
        this.maxOutputTokens = b.maxOutputTokens;
    }

    /**
     * A hash of the request's prompt prefix: requests with equal hashes share their leading prompt
     * (see docs/combos.md, {@code cache-optimized}, for the rule), so an upstream's prompt cache
     * serves them from one account.
     *
     * @return the hash, or 0 when the request has no prompt
     */
    public long promptPrefixHash() {
        if (!prefixKnown) {
            prefixValue = prefix.getAsLong();
            prefixKnown = true;
        }
        return prefixValue;
    }

    /**
     * The gateway's estimate of the request's input tokens (its messages, tools and images; see
     * docs/combos.md for how far off it may be).
     *
     * @return the estimate, or {@link #UNKNOWN}
     */
    public long estimatedInputTokens() {
        if (!inputKnown) {
            inputValue = input.getAsLong();
            inputKnown = true;
        }
        return inputValue;
    }

    /**
     * The most output tokens the request asks for ({@code max_tokens}).
     *
     * @return the limit, or null when the request sets none
     */
    public Integer maxOutputTokens() {
        return maxOutputTokens;
    }

    /** @return a builder of a request that knows nothing yet */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link ComboRequest}. */
    public static final class Builder {
        private LongSupplier prefix = () -> 0;
        private LongSupplier input = () -> UNKNOWN;
        private Integer maxOutputTokens;

        private Builder() {
        }

        /**
         * How the prompt prefix hash is computed when first asked for.
         *
         * @param value computes the hash (0 for none)
         * @return this
         */
        public Builder promptPrefixHash(LongSupplier value) {
            this.prefix = java.util.Objects.requireNonNull(value, "value is null");
            return this;
        }

        /**
         * How the input estimate is computed when first asked for.
         *
         * @param value computes the estimate ({@link #UNKNOWN} for none)
         * @return this
         */
        public Builder estimatedInputTokens(LongSupplier value) {
            this.input = java.util.Objects.requireNonNull(value, "value is null");
            return this;
        }

        /**
         * The request's {@code max_tokens}.
         *
         * @param value the limit, or null
         * @return this
         */
        public Builder maxOutputTokens(Integer value) {
            this.maxOutputTokens = value;
            return this;
        }

        /** @return the request facts */
        public ComboRequest build() {
            return new ComboRequest(this);
        }
    }
}
