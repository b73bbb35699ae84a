package dev.sluice.runtime.routing;

import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every provider Sluice can route to: built-in descriptors, plugin descriptors (each with its
 * executor resolved once at start-up), and custom OpenAI-compatible providers (SPEC DM-2b: a
 * connection whose provider id nobody claims but which has a {@code baseUrl}).
 */
public final class ProviderCatalog {

    private static final System.Logger LOG = System.getLogger(ProviderCatalog.class.getName());

    private final Map<String, Provider> declared;
    private final ProviderExecutor customExecutor;
    private final ConnectionStore connections;
    private final Map<String, String> refused;
    /** Connections already reported as unusable, so a bad row is logged once, not per request. */
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    /**
     * Creates the catalog.
     *
     * @param declared built-in and plugin providers, in listing order
     * @param customExecutor the executor for custom providers (the OpenAI-compatible one)
     * @param connections the connection store
     * @param refused provider ids of refused plugins to why (SH-2): never custom providers
     */
    public ProviderCatalog(List<Provider> declared, ProviderExecutor customExecutor, ConnectionStore connections,
            Map<String, String> refused) {
        this.refused = Map.copyOf(refused);
        Map<String, Provider> map = new LinkedHashMap<>();
        for (Provider p : declared) {
            if (map.putIfAbsent(p.id(), p) != null) {
                throw new IllegalArgumentException("provider id '" + p.id() + "' declared twice");
            }
        }
        this.declared = map;
        this.customExecutor = customExecutor;
        this.connections = connections;
    }

    /**
     * A provider by id: declared, else custom when a connection defines it.
     *
     * @param id provider id
     * @return the provider, or empty
     */
    public Optional<Provider> find(String id) {
        Provider p = declared.get(id);
        if (p != null) {
            return Optional.of(p);
        }
        if (refused.containsKey(id)) {
            return Optional.empty();
        }
        for (Connection c : connections.list()) {
            if (c.provider().equals(id) && c.baseUrl() != null) {
                return custom(c);
            }
        }
        return Optional.empty();
    }

    /**
     * Whether a provider id is declared by a built-in or a plugin.
     *
     * @param id provider id
     * @return true when declared
     */
    public boolean isDeclared(String id) {
        return declared.containsKey(id);
    }

    /**
     * Why a provider id is unavailable because its plugin was refused (SH-2).
     *
     * @param id provider id
     * @return the reason, or empty when the provider's plugin was not refused
     */
    public Optional<String> refusal(String id) {
        return Optional.ofNullable(refused.get(id));
    }

    /**
     * Declared providers, in listing order.
     *
     * @return the providers
     */
    public List<Provider> declared() {
        return List.copyOf(declared.values());
    }

    /**
     * Every provider with at least one enabled connection, declared ones first, then custom ones
     * by first connection.
     *
     * @return the providers
     */
    public List<Provider> withConnections() {
        List<Connection> all = connections.list().stream().filter(Connection::enabled).toList();
        List<Provider> out = new ArrayList<>();
        for (Provider p : declared.values()) {
            if (all.stream().anyMatch(c -> c.provider().equals(p.id()))) {
                out.add(p);
            }
        }
        for (Connection c : all) {
            if (!declared.containsKey(c.provider()) && !refused.containsKey(c.provider()) && c.baseUrl() != null
                    && out.stream().noneMatch(p -> p.id().equals(c.provider()))) {
                custom(c).ifPresent(out::add);
            }
        }
        return out;
    }

    /**
     * The custom provider a connection defines, or empty when its stored row cannot define one
     * (a base URL written before the admin API validated it, or edited in the database): one bad
     * row must cost only its own provider, never the model listing or routing of everyone else.
     */
    private Optional<Provider> custom(Connection c) {
        // built once per (id, base URL), not per request (issue 26): a descriptor validates its fields with patterns
        CustomKey key = new CustomKey(c.provider(), c.baseUrl());
        Optional<Provider> known = customs.get(key);
        if (known != null) {
            return known;
        }
        if (customs.size() >= MAX_CUSTOMS) {
            customs.clear();
        }
        Optional<Provider> made = makeCustom(c);
        customs.put(key, made);
        return made;
    }

    /** Custom providers kept built at most; past it the cache starts again (base URLs edited many times). */
    static final int MAX_CUSTOMS = 4096;

    private record CustomKey(String id, String baseUrl) {
    }

    private final java.util.concurrent.ConcurrentMap<CustomKey, Optional<Provider>> customs = new java.util.concurrent.ConcurrentHashMap<>();

    private Optional<Provider> makeCustom(Connection c) {
        String baseUrl = lowerCaseScheme(c.baseUrl());
        try {
            // a custom provider is OpenAI-compatible by definition (DM-2b), so it answers GET /models (issue 32)
            return Optional.of(new Provider(ProviderDescriptor.builder(c.provider()).displayName(c.provider())
                    .defaultClass(ProviderClass.APIKEY).defaultBaseUrl(baseUrl).executor(HostContext.OPENAI_COMPATIBLE)
                    .passthroughModels(true).discoversModels(true).build(), customExecutor, Provider.CUSTOM));
        } catch (IllegalArgumentException e) {
            if (reported.add(c.id())) {
                LOG.log(System.Logger.Level.WARNING, "connection " + c.id() + " of custom provider '" + c.provider()
                        + "' is skipped: " + e.getMessage() + "; fix its baseUrl through the admin API");
            }
            return Optional.empty();
        }
    }

    /** RFC 3986 §3.1: the scheme is case-insensitive; descriptors expect it lower case. */
    static String lowerCaseScheme(String url) {
        int colon = url.indexOf(':');
        if (colon < 0) {
            return url;
        }
        // issue 26: called per attempt; a scheme already in lower case (nearly always) costs no copy
        for (int i = 0; i < colon; i++) {
            char ch = url.charAt(i);
            if (ch >= 'A' && ch <= 'Z') {
                return url.substring(0, colon).toLowerCase(Locale.ROOT) + url.substring(colon);
            }
        }
        return url;
    }
}
