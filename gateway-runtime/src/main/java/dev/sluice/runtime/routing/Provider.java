package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderExecutor;

/**
 * A routable provider: its descriptor, the executor that calls it and where it comes from.
 *
 * @param descriptor the descriptor
 * @param executor the executor
 * @param origin {@code built-in}, {@code custom} or the contributing plugin's name
 */
public record Provider(ProviderDescriptor descriptor, ProviderExecutor executor, String origin) {

    /** Origin of the built-in providers. */
    public static final String BUILT_IN = "built-in";
    /** Origin of DM-2b custom providers. */
    public static final String CUSTOM = "custom";

    /** Validates. */
    public Provider {
        requireNonNull(descriptor, "descriptor is null");
        requireNonNull(executor, "executor is null");
        requireNonNull(origin, "origin is null");
    }

    /**
     * The provider id.
     *
     * @return the id
     */
    public String id() {
        return descriptor.id();
    }
}
