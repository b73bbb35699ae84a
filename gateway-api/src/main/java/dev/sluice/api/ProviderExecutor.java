package dev.sluice.api;

/**
 * Calls one upstream provider for one attempt: translates the canonical request into the
 * provider's protocol, sends it through {@link HostContext#http()}, and translates the answer
 * back. The runtime decides which connection to use and what to do with a failure; an executor
 * never retries on another connection and never throws for an upstream failure: it returns
 * {@link ChatOutcome.Failed}.
 *
 * <p>Executors are shared by all requests and must be thread-safe (each request runs on its own
 * virtual thread; blocking I/O is expected).
 */
public interface ProviderExecutor {

    /**
     * Sends one chat attempt. For a streaming request the executor returns
     * {@link ChatOutcome.Streaming} as soon as the upstream answered with a success status, before
     * any chunk is read, so the runtime can relay chunks as they arrive.
     *
     * @param call the request, the connection to use and the request id
     * @return the outcome; never null
     */
    ChatOutcome chat(ChatCall call);

    /**
     * Whether {@link #embed(EmbeddingCall)} is implemented.
     *
     * @return true when the executor serves embeddings
     */
    default boolean supportsEmbeddings() {
        return false;
    }

    /**
     * Sends one embeddings attempt. The runtime calls it only when {@link #supportsEmbeddings()}
     * is true.
     *
     * @param call the request and the connection to use
     * @return the outcome; never null
     */
    default EmbeddingOutcome embed(EmbeddingCall call) {
        throw new IllegalStateException(getClass().getName() + " does not serve embeddings");
    }

    /**
     * Whether {@link #passthrough(PassthroughCall)} accepts requests of a client dialect, i.e. the
     * upstream speaks it natively (e.g. a Claude executor and {@link PassthroughCall#ANTHROPIC_MESSAGES}).
     *
     * @param dialect the dialect
     * @return true when supported
     */
    default boolean supportsPassthrough(String dialect) {
        return false;
    }

    /**
     * Whether {@link #passthrough(PassthroughCall)} accepts requests of a client dialect for one
     * connection: an executor whose connections differ (e.g. by a setting in their
     * {@link UpstreamTarget#providerSpecificData()}) answers per connection. The runtime asks
     * before each attempt; when false the request is translated through the canonical model.
     * The default is {@link #supportsPassthrough(String)}.
     *
     * @param dialect the dialect
     * @param target the connection about to be tried
     * @return true when supported for this connection
     */
    default boolean supportsPassthrough(String dialect, UpstreamTarget target) {
        return supportsPassthrough(dialect);
    }

    /**
     * Sends a client request in the upstream's own dialect, unchanged but for the model id. The
     * runtime calls it only when {@link #supportsPassthrough(String)} is true for the dialect.
     *
     * @param call the request and the connection to use
     * @return the outcome; never null
     */
    default PassthroughOutcome passthrough(PassthroughCall call) {
        throw new IllegalStateException(getClass().getName() + " does not pass " + call.dialect() + " requests through");
    }

    /**
     * Provider-specific recovery from an upstream failure, before the runtime's generic failure
     * path: the runtime offers every failed attempt's failure here first. Retry on the same
     * connection at once or after a wait (for example after switching the connection to another
     * mode the provider offered), or hand the failure on. Decide quickly; the runtime does the
     * waiting (bounded by the call's budget, cancelled when the client leaves) and sends the retry
     * through {@link #chat} or {@link #passthrough} again. The default hands every failure on.
     *
     * @param call the failure and its connection
     * @return the decision; never null
     */
    @Experimental("recovery hooks are new in this release")
    default Recovery recover(RecoveryCall call) {
        return Recovery.handOn();
    }

    /**
     * What this executor keeps about a connection, for operators: shown with the connection's row
     * in {@code GET /api/resilience/cooldowns} under {@code pluginState}. Empty when nothing.
     *
     * @param connectionId the connection
     * @return names to plain values (strings, numbers, booleans); never secrets
     */
    @Experimental("the shape of plugin state in the admin API may change")
    default java.util.Map<String, Object> connectionState(String connectionId) {
        return java.util.Map.of();
    }
}
