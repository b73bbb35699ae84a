package dev.sluice.runtime.routing;

import dev.sluice.api.ConnectionField;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderDescriptor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code providerSpecificData} members a connection of a provider is read for (issue 33): the
 * runtime's own ({@code models}, every provider), the built-in OpenAI-compatible executor's
 * ({@code responsesApi}, every provider it serves) and the descriptor's own
 * ({@link ProviderDescriptor#connectionFields()}, e.g. a plugin's options). What the console's
 * connection form offers, so the page holds no list of its own.
 */
public final class ConnectionFieldCatalog {

    /** Read for every provider: extra model ids to list ({@code ModelListing}). */
    static final ConnectionField MODELS = ConnectionField.builder("models", ConnectionField.Type.STRING_LIST).label("Extra models")
            .description("Model ids this connection serves beyond the provider's list: listed by GET /v1/models as provider/<model>.")
            .build();

    /** Read by the built-in OpenAI-compatible executor ({@code OpenAiCompatibleExecutor.RESPONSES_API}). */
    static final ConnectionField RESPONSES_API = ConnectionField.builder("responsesApi", ConnectionField.Type.BOOLEAN)
            .label("Responses API passthrough")
            .description("Whether POST /v1/responses is passed to this upstream as it is (its /responses endpoint) instead of being "
                    + "translated to chat completions. Unset: on for OpenAI itself, off for other OpenAI-compatible servers.")
            .build();

    private ConnectionFieldCatalog() {
    }

    /**
     * The fields of a provider's connections, the runtime's first, then its executor's, then its
     * descriptor's (a descriptor's field of the same name replaces the runtime's).
     *
     * @param d the descriptor
     * @return the fields
     */
    public static List<ConnectionField> of(ProviderDescriptor d) {
        Map<String, ConnectionField> out = new LinkedHashMap<>();
        out.put(MODELS.name(), MODELS);
        if (openAiCompatible(d.executor())) {
            out.put(RESPONSES_API.name(), RESPONSES_API);
        }
        d.connectionFields().forEach(f -> out.put(f.name(), f));
        return List.copyOf(new ArrayList<>(out.values()));
    }

    /** @return the fields of a custom provider's connections (any other id: the OpenAI-compatible executor) */
    public static List<ConnectionField> custom() {
        return List.of(MODELS, RESPONSES_API);
    }

    private static boolean openAiCompatible(String executor) {
        return HostContext.OPENAI_COMPATIBLE.equals(executor) || HostContext.OPENAI_RESPONSES.equals(executor);
    }
}
