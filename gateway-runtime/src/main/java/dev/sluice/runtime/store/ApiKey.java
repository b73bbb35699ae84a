package dev.sluice.runtime.store;

import java.util.List;

/**
 * A gateway API key as stored: only the hash of the secret.
 *
 * @param id id
 * @param name name
 * @param keyHash SHA-256 of the secret, hex
 * @param keyPreview visible start of the secret
 * @param scopes scopes ({@code admin}, {@code lease:exclusive})
 * @param allowedConnections connection ids this key may use; empty = all
 * @param allowedModels model names (exact, or a prefix ending in {@code *}) this key may ask for; empty = all
 * @param createdAt epoch ms
 */
public record ApiKey(String id, String name, String keyHash, String keyPreview, List<String> scopes,
        List<String> allowedConnections, List<String> allowedModels, long createdAt) {

    /** Copies the lists. */
    public ApiKey {
        scopes = List.copyOf(scopes);
        allowedConnections = List.copyOf(allowedConnections);
        allowedModels = List.copyOf(allowedModels);
    }

    /**
     * What a key may do besides authenticating: the part of a key an operator sets and edits.
     *
     * @param scopes scopes
     * @param allowedConnections allowed connection ids; empty = all
     * @param allowedModels allowed model names or prefixes; empty = all
     */
    public record Grants(List<String> scopes, List<String> allowedConnections, List<String> allowedModels) {
        /** Copies the lists. */
        public Grants {
            scopes = List.copyOf(scopes);
            allowedConnections = List.copyOf(allowedConnections);
            allowedModels = List.copyOf(allowedModels);
        }
    }

    /** @return this key's grants */
    public Grants grants() {
        return new Grants(scopes, allowedConnections, allowedModels);
    }
}
