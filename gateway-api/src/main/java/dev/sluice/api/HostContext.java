package dev.sluice.api;

import dev.sluice.api.upstream.UpstreamHttp;
import java.time.InstantSource;
import java.util.Optional;

/**
 * What the runtime hands to plugin code (SPEC PA-4): the shared upstream HTTP client, the clock,
 * the plugin's own settings view, a logger, and the runtime's built-in executors so that plugins
 * reuse them instead of copying them.
 */
public interface HostContext {

    /** Name of the built-in OpenAI-compatible executor ({@code /chat/completions}, {@code /embeddings}). */
    String OPENAI_COMPATIBLE = "openai-compatible";

    /**
     * Name of the built-in executor for OpenAI-compatible upstreams that also serve the Responses
     * API ({@code POST /responses}): chat and embeddings as {@link #OPENAI_COMPATIBLE}, and
     * {@code /v1/responses} requests passed through unchanged but for the model
     * ({@link PassthroughCall#OPENAI_RESPONSES}), so built-in tools, reasoning items and
     * {@code include} reach the upstream. A connection may opt out (or, under
     * {@link #OPENAI_COMPATIBLE}, in) with {@code providerSpecificData.responsesApi}.
     */
    String OPENAI_RESPONSES = "openai-responses";

    /**
     * The runtime's upstream HTTP client (keep-alive, bounded timeouts). Plugins never open their
     * own clients.
     *
     * @return the HTTP client
     */
    UpstreamHttp http();

    /**
     * The clock; tests control it. Plugins never read the system time directly.
     *
     * @return the clock
     */
    InstantSource clock();

    /**
     * The settings of this plugin only ({@code plugins.settings.<name>.*} in {@code conf/sluice.yaml}).
     *
     * @return the settings view
     */
    PluginSettings settings();

    /**
     * A logger named after the plugin. Never log secrets.
     *
     * @return the logger
     */
    System.Logger logger();

    /**
     * A built-in executor by name, e.g. {@link #OPENAI_COMPATIBLE}, for plugins whose providers
     * speak a protocol the runtime already implements.
     *
     * @param name executor name
     * @return the executor, or empty when there is no built-in executor of that name
     */
    Optional<ProviderExecutor> builtinExecutor(String name);

    /**
     * A built-in executor by name, adjusted: extra upstream headers and a rewrite of the chat
     * request body, for a provider that needs no more than that (issue 17: no executor of your
     * own, no JSON library). The adjustments apply to this executor only; the shared built-in is
     * unchanged.
     *
     * @param name executor name, e.g. {@link #OPENAI_COMPATIBLE} or {@link #OPENAI_RESPONSES}
     * @param customizer the adjustments
     * @return the adjusted executor, or empty when there is no built-in executor of that name or
     *     the host cannot adjust it
     */
    default Optional<ProviderExecutor> builtinExecutor(String name, ExecutorCustomizer customizer) {
        return customizer.isEmpty() ? builtinExecutor(name) : Optional.empty();
    }

    /**
     * Where an executor persists credentials it renewed (e.g. refreshed OAuth tokens). Empty on a
     * host that cannot store them.
     *
     * @return the credential updates, or empty
     */
    default Optional<CredentialUpdates> credentialUpdates() {
        return Optional.empty();
    }

    /**
     * Notes this plugin shares with the other instances of a cluster (NF-6), when the host runs
     * several instances sharing state; empty on a single instance (and on hosts that cannot share).
     *
     * @return the shared notes, or empty
     */
    default Optional<SharedNotes> sharedNotes() {
        return Optional.empty();
    }
}
