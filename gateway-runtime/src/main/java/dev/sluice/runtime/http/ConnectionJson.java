package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.runtime.routing.ProviderCatalog;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Provider-connection JSON (SPEC AD-1): validation of admin input into {@link NewConnection}
 * (400 naming the field) and rendering with masked secrets (SEC-2).
 */
final class ConnectionJson {

    private static final Set<String> OVERRIDE_KEYS = Set.of("maxConcurrent", "modelConcurrency", "maxWaitMs",
            "executionMaxWaitMs", "requestsPerMinute", "minTimeBetweenRequestsMs");
    private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|[0-9a-fA-F:]+");

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
        String apiKey = optionalString(body, "apiKey");
        OAuthTokens oauth = parseOAuth(body.get("oauth"));
        if (existing != null) {
            apiKey = apiKey == null && !body.has("apiKey") ? existing.apiKey() : apiKey;
            oauth = oauth == null && !body.has("oauth") ? existing.oauth() : oauth;
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
        String name = optionalString(body, "name");
        int priority = optionalInt(body, "priority", 1, 1, 1_000_000);
        boolean enabled = optionalBoolean(body, "enabled", true);
        Integer maxConcurrent = body.hasNonNull("maxConcurrent") ? optionalInt(body, "maxConcurrent", 1, 1, 100_000) : null;
        String overrides = rateLimitOverrides(body.get("rateLimitOverrides"));
        boolean disableCooling = optionalBoolean(body, "disableCooling", false);
        String psd = optionalObject(body, "providerSpecificData");
        String localAddress = optionalString(body, "localAddress");
        if (localAddress != null && !IP_LITERAL.matcher(localAddress).matches()) {
            throw ApiException.badRequest("localAddress", "'localAddress' must be an IP address literal.");
        }
        String proxyUrl = url(body, "proxyUrl", Set.of("http", "https", "socks5"));
        return new NewConnection(provider, name == null || name.isBlank() ? provider : name, authType, apiKey, oauth,
                baseUrl, priority, enabled, maxConcurrent, overrides, disableCooling, psd, localAddress, proxyUrl);
    }

    /** Applies a PATCH: only the fields present change. */
    NewConnection merge(ObjectNode patch, Connection c) {
        ObjectNode full = render(c);
        full.remove("apiKey");
        full.remove("oauth");
        Iterator<Map.Entry<String, JsonNode>> it = patch.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            full.set(e.getKey(), e.getValue());
        }
        return parse(full, c);
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
        putNullable(o, "baseUrl", c.baseUrl());
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
        putNullable(o, "proxyUrl", c.proxyUrl());
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

    /** Shows the first 3 and last 4 characters of long secrets, nothing of short ones. */
    static String mask(String secret) {
        if (secret == null) {
            return null;
        }
        return secret.length() < 16 ? "****" : secret.substring(0, 3) + "…" + secret.substring(secret.length() - 4);
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

    private static OAuthTokens parseOAuth(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("oauth", "'oauth' must be an object {accessToken, refreshToken?, expiresAt?}.");
        }
        JsonNode access = n.get("accessToken");
        if (access == null || !access.isTextual() || access.asText().isBlank()) {
            throw ApiException.badRequest("oauth.accessToken", "'oauth.accessToken' is required and must be a non-empty string.");
        }
        JsonNode refresh = n.get("refreshToken");
        if (refresh != null && !refresh.isNull() && !refresh.isTextual()) {
            throw ApiException.badRequest("oauth.refreshToken", "'oauth.refreshToken' must be a string.");
        }
        JsonNode exp = n.get("expiresAt");
        if (exp != null && !exp.isNull() && !exp.canConvertToLong()) {
            throw ApiException.badRequest("oauth.expiresAt", "'oauth.expiresAt' must be epoch milliseconds.");
        }
        return new OAuthTokens(access.asText(), refresh == null || refresh.isNull() ? null : refresh.asText(),
                exp == null || exp.isNull() ? null : exp.asLong());
    }

    private String rateLimitOverrides(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("rateLimitOverrides", "'rateLimitOverrides' must be an object.");
        }
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = "rateLimitOverrides." + e.getKey();
            if (!OVERRIDE_KEYS.contains(e.getKey())) {
                throw ApiException.badRequest(path, "unknown setting '" + path + "' (known: " + String.join(", ", OVERRIDE_KEYS.stream().sorted().toList()) + ").");
            }
            JsonNode v = e.getValue();
            if (e.getKey().equals("modelConcurrency")) {
                if (!v.isObject()) {
                    throw ApiException.badRequest(path, "'" + path + "' must be an object of model → positive integer.");
                }
                v.fields().forEachRemaining(m -> {
                    if (!m.getValue().isIntegralNumber() || m.getValue().asLong() < 1) {
                        throw ApiException.badRequest(path + "." + m.getKey(), "'" + path + "." + m.getKey() + "' must be a positive integer.");
                    }
                });
            } else if (!v.isNull() && (!v.isIntegralNumber() || v.asLong() < 0)) {
                throw ApiException.badRequest(path, "'" + path + "' must be a non-negative integer.");
            }
        }
        return n.toString();
    }

    private static String requiredString(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            throw ApiException.badRequest(field, "'" + field + "' is required.");
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            throw ApiException.badRequest(field, "'" + field + "' must be a non-empty string.");
        }
        return n.asText().strip();
    }

    private static String optionalString(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw ApiException.badRequest(field, "'" + field + "' must be a string.");
        }
        return n.asText();
    }

    private static int optionalInt(ObjectNode body, String field, int dflt, int min, int max) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isIntegralNumber() || n.asLong() < min || n.asLong() > max) {
            throw ApiException.badRequest(field, "'" + field + "' must be an integer between " + min + " and " + max + ".");
        }
        return n.asInt();
    }

    private static boolean optionalBoolean(ObjectNode body, String field, boolean dflt) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isBoolean()) {
            throw ApiException.badRequest(field, "'" + field + "' must be true or false.");
        }
        return n.asBoolean();
    }

    private static String optionalObject(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest(field, "'" + field + "' must be a JSON object.");
        }
        return n.toString();
    }

    private static String url(ObjectNode body, String field, Set<String> schemes) {
        String v = optionalString(body, field);
        if (v == null || v.isBlank()) {
            return null;
        }
        try {
            URI u = new URI(v.strip());
            if (u.getScheme() == null || !schemes.contains(u.getScheme().toLowerCase(java.util.Locale.ROOT)) || u.getHost() == null) {
                throw ApiException.badRequest(field, "'" + field + "' must be an absolute " + String.join("/", schemes.stream().sorted().toList()) + " URL.");
            }
            String s = u.toString();
            return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        } catch (URISyntaxException e) {
            throw ApiException.badRequest(field, "'" + field + "' is not a valid URL: " + e.getReason() + ".");
        }
    }
}
