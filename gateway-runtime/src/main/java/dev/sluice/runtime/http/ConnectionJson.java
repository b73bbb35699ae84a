package dev.sluice.runtime.http;

import static dev.sluice.runtime.http.ConnectionFields.isIpLiteral;
import static dev.sluice.runtime.http.ConnectionFields.isLocalAddress;
import static dev.sluice.runtime.http.ConnectionFields.optionalBoolean;
import static dev.sluice.runtime.http.ConnectionFields.optionalInt;
import static dev.sluice.runtime.http.ConnectionFields.optionalObject;
import static dev.sluice.runtime.http.ConnectionFields.optionalString;
import static dev.sluice.runtime.http.ConnectionFields.requiredString;
import static dev.sluice.runtime.http.ConnectionFields.url;
import static dev.sluice.runtime.http.ConnectionSecrets.credential;
import static dev.sluice.runtime.http.ConnectionSecrets.mask;
import static dev.sluice.runtime.http.ConnectionSecrets.maskUrl;
import static dev.sluice.runtime.http.ConnectionSecrets.parseOAuth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Provider-connection JSON (SPEC AD-1): validation of admin input into {@link NewConnection}
 * (400 naming the field) and rendering with masked secrets (SEC-2). Single fields are read by
 * {@link ConnectionFields}, secrets by {@link ConnectionSecrets}, the overrides object by
 * {@link RateLimitOverridesJson}.
 */
final class ConnectionJson {

    private final Json json;
    private final ProviderCatalog catalog;

    ConnectionJson(Json json, ProviderCatalog catalog) {
        this.json = json;
        this.catalog = catalog;
    }

    /**
     * Validates a full body (POST, PUT). For PUT, absent secrets keep the stored ones: clients
     * never see them, so they cannot send them back.
     */
    NewConnection parse(ObjectNode body, Connection existing) {
        String provider = requiredString(body, "provider");
        if (!ProviderDescriptor.isValidId(provider)) {
            throw ApiException.badRequest("provider", "'provider' must match [a-z0-9][a-z0-9._-]* (at most 64 characters).");
        }
        catalog.refusal(provider).ifPresent(why -> {
            // SH-2: else the connection would be served by the generic OpenAI-compatible route
            throw ApiException.badRequest("provider", "Provider '" + provider + "' cannot take connections: its " + why
                    + ". Fix or remove the plugin and restart.");
        });
        ProviderClass authType;
        JsonNode at = body.get("authType");
        if (at == null || at.isNull()) {
            authType = catalog.find(provider).map(p -> p.descriptor().defaultClass()).orElse(ProviderClass.APIKEY);
        } else {
            if (!at.isTextual()) {
                throw ApiException.badRequest("authType", "'authType' must be one of apikey, oauth, local.");
            }
            try {
                authType = ProviderClass.fromWireName(at.asText());
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest("authType", "'authType' must be one of apikey, oauth, local; got '" + at.asText() + "'.");
            }
        }
        String apiKey = credential("apiKey", optionalString(body, "apiKey"), existing == null ? null : existing.apiKey());
        OAuthTokens oauth = parseOAuth(body.get("oauth"), existing == null ? null : existing.oauth());
        if (existing != null) {
            // clients never see secrets, so an absent (or masked, echoed back) secret keeps the stored one
            apiKey = apiKey == null && !body.has("apiKey") ? existing.apiKey() : apiKey;
            oauth = oauth == null && !body.has("oauth") ? existing.oauth() : oauth;
        }
        // a connection carries the credential of its class only: switching authType drops the other
        if (authType == ProviderClass.APIKEY) {
            oauth = null;
        } else if (authType == ProviderClass.OAUTH) {
            apiKey = null;
        }
        if (authType == ProviderClass.APIKEY && (apiKey == null || apiKey.isBlank())) {
            throw ApiException.badRequest("apiKey", "'apiKey' is required when authType is apikey.");
        }
        if (authType == ProviderClass.OAUTH && oauth == null) {
            throw ApiException.badRequest("oauth", "'oauth' with an 'accessToken' is required when authType is oauth.");
        }
        String baseUrl = url(body, "baseUrl", Set.of("http", "https"));
        if (baseUrl == null && !catalog.isDeclared(provider)) {
            throw ApiException.badRequest("baseUrl", "'baseUrl' is required for provider '" + provider
                    + "': no plugin or built-in provides it, so it is a custom OpenAI-compatible provider (e.g. https://host/v1).");
        }
        String name = AdminStrings.name("name", optionalString(body, "name"));
        int priority = optionalInt(body, "priority", 1, 1, 1_000_000);
        boolean enabled = optionalBoolean(body, "enabled", true);
        Integer maxConcurrent = body.hasNonNull("maxConcurrent") ? optionalInt(body, "maxConcurrent", 1, 1, 100_000) : null;
        String overrides = RateLimitOverridesJson.parse(body.get("rateLimitOverrides"));
        boolean disableCooling = optionalBoolean(body, "disableCooling", false);
        String psd = optionalObject(body, "providerSpecificData");
        String localAddress = optionalString(body, "localAddress");
        if (localAddress != null && !isIpLiteral(localAddress)) {
            throw ApiException.badRequest("localAddress", "'localAddress' must be an IP address literal.");
        }
        if (localAddress != null && !isLocalAddress(localAddress)) {
            // binding to an address this machine does not hold fails every attempt, far from the cause
            throw ApiException.badRequest("localAddress", "'localAddress' " + localAddress
                    + " is not a loopback address or an address of a network interface of this machine.");
        }
        // an HTTP proxy (CONNECT for https upstreams): the only kind the egress routes speak (§16.3)
        String proxyUrl = ConnectionFields.proxyUrl(body);
        return new NewConnection(provider, name == null || name.isBlank() ? provider : name, authType, apiKey, oauth,
                baseUrl, priority, enabled, maxConcurrent, overrides, disableCooling, psd, localAddress, proxyUrl);
    }

    /** Applies a PATCH: only the fields present change. */
    NewConnection merge(ObjectNode patch, Connection c) {
        ObjectNode full = render(c);
        // secrets stay stored unless the patch names them (parse keeps absent ones); URLs unmasked
        full.remove("apiKey");
        full.remove("oauth");
        putNullable(full, "baseUrl", c.baseUrl());
        putNullable(full, "proxyUrl", c.proxyUrl());
        deepMerge(full, patch);
        return parse(full, c);
    }

    /** Objects merge key by key, everything else is replaced (as SE-4 PATCH). */
    private static void deepMerge(ObjectNode target, ObjectNode patch) {
        Iterator<Map.Entry<String, JsonNode>> it = patch.properties().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode current = target.get(e.getKey());
            if (current instanceof ObjectNode co && e.getValue() instanceof ObjectNode po) {
                deepMerge(co, po);
            } else {
                target.set(e.getKey(), e.getValue());
            }
        }
    }

    /** Renders a connection; secrets masked. */
    ObjectNode render(Connection c) {
        ObjectNode o = json.object();
        o.put("id", c.id());
        o.put("provider", c.provider());
        o.put("name", c.name());
        o.put("authType", c.authType().wireName());
        if (c.apiKey() != null) {
            o.put("apiKey", mask(c.apiKey()));
        } else {
            o.putNull("apiKey");
        }
        if (c.oauth() != null) {
            ObjectNode oa = o.putObject("oauth");
            oa.put("accessToken", mask(c.oauth().accessToken()));
            if (c.oauth().refreshToken() != null) {
                oa.put("refreshToken", mask(c.oauth().refreshToken()));
            }
            if (c.oauth().expiresAt() != null) {
                oa.put("expiresAt", c.oauth().expiresAt());
            }
        }
        putNullable(o, "baseUrl", maskUrl(c.baseUrl()));
        o.put("priority", c.priority());
        o.put("enabled", c.enabled());
        if (c.maxConcurrent() == null) {
            o.putNull("maxConcurrent");
        } else {
            o.put("maxConcurrent", c.maxConcurrent());
        }
        o.set("rateLimitOverrides", parseJson(c.rateLimitOverridesJson()));
        o.put("rateLimitProtection", c.rateLimitProtection());
        o.put("disableCooling", c.disableCooling());
        o.set("providerSpecificData", parseJson(c.providerSpecificDataJson()));
        putNullable(o, "localAddress", c.localAddress());
        putNullable(o, "proxyUrl", maskUrl(c.proxyUrl()));
        o.put("testStatus", c.state().testStatus());
        if (c.state().rateLimitedUntil() == null) {
            o.putNull("rateLimitedUntil");
        } else {
            o.put("rateLimitedUntil", c.state().rateLimitedUntil());
        }
        putNullable(o, "lastError", c.state().lastError());
        putNullable(o, "lastErrorType", c.state().lastErrorType());
        putNullable(o, "errorCode", c.state().errorCode());
        o.put("backoffLevel", c.state().backoffLevel());
        o.put("createdAt", c.createdAt());
        o.put("updatedAt", c.updatedAt());
        return o;
    }


    private JsonNode parseJson(String s) {
        if (s == null) {
            return json.mapper().nullNode();
        }
        try {
            return json.mapper().readTree(s);
        } catch (IOException e) {
            return json.mapper().nullNode();
        }
    }

    private static void putNullable(ObjectNode o, String field, String value) {
        if (value == null) {
            o.putNull(field);
        } else {
            o.put(field, value);
        }
    }
}
