package dev.sluice.runtime.resilience.window.shared;

/**
 * Provider cooldown windows (SPEC §7, PC-2) as every instance must see them on its very next
 * request (NF-6). The failure window itself stays in the memory of the instance that counted the
 * failures ({@link ProviderCooldowns}); once it crosses its threshold the board announces the
 * cooldown's end, and the provider-level gate of every instance holds until then. The default,
 * {@link #NONE}, announces nothing (one instance).
 *
 * <p>An implementation bounds every call; when its store cannot be reached, reads answer 0 and
 * writes are dropped: each instance then has its own windows only.
 */
public interface WindowBoard {

    /** Announces nothing; knows nothing. */
    WindowBoard NONE = new WindowBoard() {
        @Override
        public void cooling(String provider, long remainingMs) {
        }

        @Override
        public void cleared(String provider) {
        }

        @Override
        public long remainingMs(String provider) {
            return 0;
        }
    };

    /**
     * A provider now cools for {@code remainingMs}.
     *
     * @param provider the provider id
     * @param remainingMs how long from now, ms (&gt; 0)
     */
    void cooling(String provider, long remainingMs);

    /**
     * A provider's cooldown ended early (a success).
     *
     * @param provider the provider id
     */
    void cleared(String provider);

    /**
     * Every provider's cooldown ended early (an operator's reset of every breaker and window).
     */
    default void clearedAll() {
    }

    /**
     * How long a provider is announced to cool still.
     *
     * @param provider the provider id
     * @return ms left, 0 when none is announced (or the board cannot be reached)
     */
    long remainingMs(String provider);

    /** @return true when windows are announced to other instances */
    default boolean shared() {
        return this != NONE;
    }
}
