package dev.sluice.runtime.plugin;

import static java.util.Objects.requireNonNull;

/**
 * A request routed to a provider whose plugin was refused at start-up (SPEC SH-2). Answered as
 * 503 naming the plugin, so that the operator learns why instead of the request silently going to
 * the generic OpenAI-compatible route. No stack trace: this is a refusal, not a fault.
 */
public final class RefusedProviderException extends RuntimeException {

    private final String providerId;

    /**
     * Creates the refusal.
     *
     * @param providerId the provider
     * @param why why its plugin was refused, naming the plugin source
     */
    public RefusedProviderException(String providerId, String why) {
        super("Provider '" + requireNonNull(providerId, "providerId is null") + "' is unavailable: its " + why, null, false, false);
        this.providerId = providerId;
    }

    /**
     * The provider.
     *
     * @return the provider id
     */
    public String providerId() {
        return providerId;
    }
}
