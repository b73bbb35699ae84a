package dev.sluice.runtime.routing;

import dev.sluice.api.ModelInfo;
import java.util.List;
import java.util.Optional;

/**
 * Resolves the client's {@code model} (SPEC API-1): {@code provider/model} picks the provider
 * (the model part may itself contain slashes); a bare model id resolves to the first provider,
 * in listing order, that has connections and whose model-id patterns match it, else to the first
 * that has connections and lists it.
 */
public final class ModelResolver {

    private final ProviderCatalog catalog;

    /**
     * Creates the resolver.
     *
     * @param catalog the provider catalog
     */
    public ModelResolver(ProviderCatalog catalog) {
        this.catalog = catalog;
    }

    /**
     * Resolves a model string.
     *
     * @param model the client's model string
     * @return the route, or empty when nothing serves it
     */
    public Optional<Route> resolve(String model) {
        int slash = model.indexOf('/');
        if (slash > 0 && slash < model.length() - 1) {
            String providerId = model.substring(0, slash);
            String upstream = model.substring(slash + 1);
            Optional<Provider> p = catalog.find(providerId);
            if (p.isPresent()) {
                boolean served = p.get().descriptor().passthroughModels() || p.get().descriptor().servesByPattern(upstream)
                        || p.get().descriptor().models().stream().anyMatch(m -> m.id().equals(upstream));
                return served ? Optional.of(new Route(p.get(), upstream, model)) : Optional.empty();
            }
        }
        List<Provider> usable = catalog.withConnections();
        // SPEC API-1: the provider whose model-id patterns claim the id (the family's own: claude for claude-*) comes first,
        // so that a bare Claude id reaches Anthropic's API even when a reseller lists it too (issue 32: Claude Code sends
        // bare ids); its patterns also route dated and future ids it does not list
        for (Provider p : usable) {
            if (p.descriptor().servesByPattern(model)) {
                return Optional.of(new Route(p, model, model));
            }
        }
        for (Provider p : usable) {
            for (ModelInfo m : p.descriptor().models()) {
                if (m.id().equals(model)) {
                    return Optional.of(new Route(p, model, model));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * Why a {@code provider/model} string cannot be routed because the provider's plugin was
     * refused at start-up (SH-2).
     *
     * @param model the client's model string
     * @return the refusal, or empty when the model does not name a refused plugin's provider
     */
    public Optional<dev.sluice.runtime.plugin.RefusedProviderException> refusal(String model) {
        int slash = model.indexOf('/');
        if (slash <= 0) {
            return Optional.empty();
        }
        String providerId = model.substring(0, slash);
        return catalog.refusal(providerId).map(why -> new dev.sluice.runtime.plugin.RefusedProviderException(providerId, why));
    }
}
