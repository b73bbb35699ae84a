package dev.sluice.runtime.http;

import dev.sluice.runtime.routing.AllowedModels;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.security.KeyHasher;
import dev.sluice.runtime.store.ApiKey;
import dev.sluice.runtime.store.ApiKeyStore;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderName;
import io.helidon.webserver.http.ServerRequest;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Authenticates requests (SPEC §2, §3, SEC-1, SEC-4): {@code Authorization: Bearer <key>} or
 * {@code x-api-key: <key>}. Only hashes are held; the comparison is constant-time.
 */
final class Authenticator {

    private static final HeaderName X_API_KEY = HeaderNames.create("x-api-key");
    private static final String ADMIN_SCOPE = "admin";

    private final ApiKeyStore keys;
    private final String adminKeyHash;

    Authenticator(ApiKeyStore keys, String adminKeyHash) {
        this.keys = keys;
        this.adminKeyHash = adminKeyHash;
    }

    /** A client of the inference API: any gateway key, or the admin key. */
    Caller client(ServerRequest req) {
        String token = token(req).orElseThrow(() -> unauthorized("missing_api_key",
                "Missing API key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'."));
        String hash = KeyHasher.hash(token);
        if (KeyHasher.matches(hash, adminKeyHash)) {
            RequestTelemetry.of(req).keyId("admin");
            return Caller.of("admin", true, Set.of(), ClientConnections.of(req));
        }
        ApiKey key = keys.findByHash(hash).filter(k -> KeyHasher.matches(k.keyHash(), hash))
                .orElseThrow(() -> unauthorized("invalid_api_key", "Invalid API key."));
        // the key's id, never the key, goes to the access log and the usage table
        RequestTelemetry.of(req).keyId(key.id());
        Caller caller = Caller.of(key.id(), key.scopes().contains(ADMIN_SCOPE), new HashSet<>(key.allowedConnections()),
                ClientConnections.of(req));
        return key.allowedModels().isEmpty() ? caller : caller.withModels(AllowedModels.of(key.allowedModels()));
    }

    /**
     * The gateway key of a client request (401 when there is none or it is unknown); empty for
     * the admin key.
     */
    Optional<ApiKey> clientKey(ServerRequest req) {
        String token = token(req).orElseThrow(() -> unauthorized("missing_api_key",
                "Missing API key: send 'Authorization: Bearer <key>' or 'x-api-key: <key>'."));
        String hash = KeyHasher.hash(token);
        if (KeyHasher.matches(hash, adminKeyHash)) {
            return Optional.empty();
        }
        return Optional.of(keys.findByHash(hash).filter(k -> KeyHasher.matches(k.keyHash(), hash))
                .orElseThrow(() -> unauthorized("invalid_api_key", "Invalid API key.")));
    }

    /** A caller of the admin API: the admin key or a key with the {@code admin} scope. */
    Caller admin(ServerRequest req) {
        Caller c = client(req);
        if (!c.admin()) {
            throw new ApiException(403, "permission_error", "insufficient_scope",
                    "This key lacks the 'admin' scope required by the admin API.", null, Map.of());
        }
        return c;
    }

    private static Optional<String> token(ServerRequest req) {
        Optional<String> auth = req.headers().first(HeaderNames.AUTHORIZATION);
        if (auth.isPresent()) {
            String v = auth.get().strip();
            if (v.regionMatches(true, 0, "Bearer ", 0, 7) && v.length() > 7) {
                return Optional.of(v.substring(7).strip());
            }
        }
        return req.headers().first(X_API_KEY).map(String::strip).filter(s -> !s.isEmpty());
    }

    private static ApiException unauthorized(String code, String message) {
        return new ApiException(401, "authentication_error", code, message, null, Map.of());
    }
}
