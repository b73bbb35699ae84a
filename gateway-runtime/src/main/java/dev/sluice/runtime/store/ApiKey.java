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
 * @param createdAt epoch ms
 */
public record ApiKey(String id, String name, String keyHash, String keyPreview, List<String> scopes,
        List<String> allowedConnections, long createdAt) {

    /** Copies the lists. */
    public ApiKey {
        scopes = List.copyOf(scopes);
        allowedConnections = List.copyOf(allowedConnections);
    }
}
