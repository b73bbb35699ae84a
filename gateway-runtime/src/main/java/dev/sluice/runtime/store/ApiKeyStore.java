package dev.sluice.runtime.store;

import java.util.List;
import java.util.Optional;

/** Gateway API keys; lookups by hash come from memory. */
public interface ApiKeyStore {

    /**
     * Every key, in creation order.
     *
     * @return the keys
     */
    List<ApiKey> list();

    /**
     * The key with this secret hash.
     *
     * @param keyHash SHA-256 hex of the presented secret
     * @return the key, or empty
     */
    Optional<ApiKey> findByHash(String keyHash);

    /**
     * Stores a key durably.
     *
     * @param name name
     * @param keyHash hash of the secret
     * @param keyPreview visible start of the secret
     * @param scopes scopes
     * @param allowedConnections allowed connection ids
     * @return the stored key
     */
    ApiKey create(String name, String keyHash, String keyPreview, List<String> scopes, List<String> allowedConnections);

    /**
     * Deletes a key.
     *
     * @param id the id
     * @return true when it existed
     */
    boolean delete(String id);
}
