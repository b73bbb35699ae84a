package dev.sluice.api;

/**
 * Creates a {@link ProviderExecutor} once the runtime has built the host services it needs.
 * Named, so that provider descriptors can refer to it.
 */
public interface ExecutorFactory {

    /**
     * Stable executor name, unique across all plugins (e.g. {@code agentrouter}).
     *
     * @return the name
     */
    String name();

    /**
     * Creates the executor. Called once at start-up.
     *
     * @param host services the runtime provides
     * @return the executor
     */
    ProviderExecutor create(HostContext host);
}
