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
     * @param grants its scopes, allowed connections and models
     * @return the stored key
     */
    ApiKey create(String name, String keyHash, String keyPreview, ApiKey.Grants grants);

    /**
     * Stores a key allowed every model.
     *
     * @param name name
     * @param keyHash hash of the secret
     * @param keyPreview visible start of the secret
     * @param scopes scopes
     * @param allowedConnections allowed connection ids
     * @return the stored key
     */
    default ApiKey create(String name, String keyHash, String keyPreview, List<String> scopes, List<String> allowedConnections) {
        return create(name, keyHash, keyPreview, new ApiKey.Grants(scopes, allowedConnections, List.of()));
    }

    /**
     * Renames a key and replaces its grants; the secret stays.
     *
     * @param id the id
     * @param name the new name
     * @param grants the new grants
     * @return the updated key, or empty when there is none with that id
     */
    Optional<ApiKey> update(String id, String name, ApiKey.Grants grants);

    /**
     * Deletes a key.
     *
     * @param id the id
     * @return true when it existed
     */
    boolean delete(String id);
}
