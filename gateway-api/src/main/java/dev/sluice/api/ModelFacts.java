package dev.sluice.api;

import java.util.Objects;

/**
 * What is known of a model for routing and usage cost (issue 34): its context window (input plus
 * output tokens it holds), its output limit, its prices per million input, output and cached
 * input tokens (US dollars), and its tier (a rank of capability, higher = larger model). Every
 * figure is optional: null means unknown. Descriptors declare what they know
 * ({@link ModelInfo#withFacts(ModelFacts)}); operators override single figures per model
 * ({@code PUT /api/models/{provider/model}}, the config file's {@code models:} section).
 * Build one with {@link #builder()}.
 */
@Experimental("the model catalog is new; figures may be added")
public final class ModelFacts {

    /** Nothing known. */
    public static final ModelFacts UNKNOWN = builder().build();

    private final Long contextWindow;
    private final Long maxOutputTokens;
    private final Double inputPerMillion;
    private final Double outputPerMillion;
    private final Double cachedInputPerMillion;
    private final Integer tier;

    private ModelFacts(Builder b) {
        this.contextWindow = b.contextWindow;
        this.maxOutputTokens = b.maxOutputTokens;
        this.inputPerMillion = b.inputPerMillion;
        this.outputPerMillion = b.outputPerMillion;
        this.cachedInputPerMillion = b.cachedInputPerMillion;
        this.tier = b.tier;
    }

    /** @return the tokens the model holds (input and output together), or null when unknown */
    public Long contextWindow() {
        return contextWindow;
    }

    /** @return the most output tokens one answer may have, or null when unknown */
    public Long maxOutputTokens() {
        return maxOutputTokens;
    }

    /** @return US dollars per million input tokens, or null when unknown */
    public Double inputPerMillion() {
        return inputPerMillion;
    }

    /** @return US dollars per million output tokens, or null when unknown */
    public Double outputPerMillion() {
        return outputPerMillion;
    }

    /** @return US dollars per million cached input tokens, or null when unknown (then input tokens' price applies) */
    public Double cachedInputPerMillion() {
        return cachedInputPerMillion;
    }

    /** @return the model's tier (higher = larger, more capable), or null when unknown */
    public Integer tier() {
        return tier;
    }

    /** @return a builder starting from these figures */
    public Builder toBuilder() {
        return new Builder().contextWindow(contextWindow).maxOutputTokens(maxOutputTokens).inputPerMillion(inputPerMillion)
                .outputPerMillion(outputPerMillion).cachedInputPerMillion(cachedInputPerMillion).tier(tier);
    }

    /** @return a builder of facts that know nothing yet */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelFacts f && Objects.equals(contextWindow, f.contextWindow)
                && Objects.equals(maxOutputTokens, f.maxOutputTokens) && Objects.equals(inputPerMillion, f.inputPerMillion)
                && Objects.equals(outputPerMillion, f.outputPerMillion) && Objects.equals(cachedInputPerMillion, f.cachedInputPerMillion)
                && Objects.equals(tier, f.tier);
    }

    @Override
    public int hashCode() {
        return Objects.hash(contextWindow, maxOutputTokens, inputPerMillion, outputPerMillion, cachedInputPerMillion, tier);
    }

    @Override
    public String toString() {
        return "ModelFacts[contextWindow=" + contextWindow + ", maxOutputTokens=" + maxOutputTokens + ", inputPerMillion="
                + inputPerMillion + ", outputPerMillion=" + outputPerMillion + ", cachedInputPerMillion=" + cachedInputPerMillion
                + ", tier=" + tier + "]";
    }

    /** Builds {@link ModelFacts}; each setter validates its figure (null = unknown). */
    public static final class Builder {
        private Long contextWindow;
        private Long maxOutputTokens;
        private Double inputPerMillion;
        private Double outputPerMillion;
        private Double cachedInputPerMillion;
        private Integer tier;

        private Builder() {
        }

        /**
         * @param tokens the context window, positive, or null
         * @return this
         */
        public Builder contextWindow(Long tokens) {
            this.contextWindow = positive(tokens, "contextWindow");
            return this;
        }

        /**
         * @param tokens the output limit, positive, or null
         * @return this
         */
        public Builder maxOutputTokens(Long tokens) {
            this.maxOutputTokens = positive(tokens, "maxOutputTokens");
            return this;
        }

        /**
         * @param usd US dollars per million input tokens, non-negative, or null
         * @return this
         */
        public Builder inputPerMillion(Double usd) {
            this.inputPerMillion = price(usd, "inputPerMillion");
            return this;
        }

        /**
         * @param usd US dollars per million output tokens, non-negative, or null
         * @return this
         */
        public Builder outputPerMillion(Double usd) {
            this.outputPerMillion = price(usd, "outputPerMillion");
            return this;
        }

        /**
         * @param usd US dollars per million cached input tokens, non-negative, or null
         * @return this
         */
        public Builder cachedInputPerMillion(Double usd) {
            this.cachedInputPerMillion = price(usd, "cachedInputPerMillion");
            return this;
        }

        /**
         * @param value the tier, 0 or more (higher = larger model), or null
         * @return this
         */
        public Builder tier(Integer value) {
            if (value != null && value < 0) {
                throw new IllegalArgumentException("tier must be 0 or more");
            }
            this.tier = value;
            return this;
        }

        /** @return the facts */
        public ModelFacts build() {
            return new ModelFacts(this);
        }

        private static Long positive(Long v, String name) {
            if (v != null && v < 1) {
                throw new IllegalArgumentException(name + " must be a positive number of tokens");
            }
            return v;
        }

        private static Double price(Double v, String name) {
            if (v != null && (!(v >= 0) || v.isInfinite())) {
                throw new IllegalArgumentException(name + " must be a non-negative number of US dollars");
            }
            return v;
        }
    }
}
