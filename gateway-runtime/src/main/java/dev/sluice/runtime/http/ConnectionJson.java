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
    private static final Pattern IPV4 = Pattern.compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    /** Largest override value: 24 h in ms (RQ-3 clamps waits to 1 ms–24 h). */
    private static final long MAX_OVERRIDE = 86_400_000L;

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
        String name = optionalString(body, "name");
        int priority = optionalInt(body, "priority", 1, 1, 1_000_000);
        boolean enabled = optionalBoolean(body, "enabled", true);
        Integer maxConcurrent = body.hasNonNull("maxConcurrent") ? optionalInt(body, "maxConcurrent", 1, 1, 100_000) : null;
        String overrides = rateLimitOverrides(body.get("rateLimitOverrides"));
        boolean disableCooling = optionalBoolean(body, "disableCooling", false);
        String psd = optionalObject(body, "providerSpecificData");
        String localAddress = optionalString(body, "localAddress");
        if (localAddress != null && !isIpLiteral(localAddress)) {
            throw ApiException.badRequest("localAddress", "'localAddress' must be an IP address literal.");
        }
        // an HTTP proxy (CONNECT for https upstreams): the only kind the egress routes speak (§16.3)
        String proxyUrl = url(body, "proxyUrl", Set.of("http"));
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

    private static boolean isIpLiteral(String s) {
        if (IPV4.matcher(s).matches()) {
            return true;
        }
        if (!IPV6.matcher(s).matches()) {
            return false;
        }
        try {
            // a string with ':' is parsed as an IPv6 literal, never looked up in DNS
            return java.net.InetAddress.getByName(s) instanceof java.net.Inet6Address;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    /** A URL with its user-info password and query hidden: they may hold credentials (SEC-2). */
    static String maskUrl(String url) {
        if (url == null) {
            return null;
        }
        try {
            URI u = new URI(url);
            if (u.getUserInfo() == null && u.getQuery() == null) {
                return url;
            }
            String user = u.getUserInfo() == null ? null : u.getUserInfo().split(":", 2)[0] + (u.getUserInfo().contains(":") ? ":****" : "");
            return new URI(u.getScheme(), user, u.getHost(), u.getPort(), u.getPath(), u.getQuery() == null ? null : "****", null).toString();
        } catch (URISyntaxException e) {
            return "****";
        }
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

    private static OAuthTokens parseOAuth(JsonNode n, OAuthTokens stored) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("oauth", "'oauth' must be an object {accessToken, refreshToken?, expiresAt?}.");
        }
        JsonNode access = n.get("accessToken");
        String accessToken;
        if (access == null || access.isNull()) {
            if (stored == null) {
                throw ApiException.badRequest("oauth.accessToken", "'oauth.accessToken' is required and must be a non-empty string.");
            }
            accessToken = stored.accessToken();
        } else if (!access.isTextual() || access.asText().isBlank()) {
            throw ApiException.badRequest("oauth.accessToken", "'oauth.accessToken' must be a non-empty string.");
        } else {
            accessToken = credential("oauth.accessToken", access.asText(), stored == null ? null : stored.accessToken());
        }
        JsonNode refresh = n.get("refreshToken");
        if (refresh != null && !refresh.isNull() && !refresh.isTextual()) {
            throw ApiException.badRequest("oauth.refreshToken", "'oauth.refreshToken' must be a string.");
        }
        String refreshToken = refresh == null ? (stored == null ? null : stored.refreshToken())
                : refresh.isNull() ? null
                : credential("oauth.refreshToken", refresh.asText(), stored == null ? null : stored.refreshToken());
        JsonNode exp = n.get("expiresAt");
        if (exp != null && !exp.isNull() && (!exp.isIntegralNumber() || !exp.canConvertToLong())) {
            throw ApiException.badRequest("oauth.expiresAt", "'oauth.expiresAt' must be epoch milliseconds.");
        }
        Long expiresAt = exp == null ? (stored == null ? null : stored.expiresAt()) : exp.isNull() ? null : exp.asLong();
        return new OAuthTokens(accessToken, refreshToken, expiresAt);
    }

    /**
     * Validates a secret: visible ASCII only (it goes into an HTTP header). The masked form of the
     * stored secret, as GET renders it, means "unchanged", so GET → edit → PUT keeps the key.
     */
    private static String credential(String field, String value, String stored) {
        if (value == null) {
            return null;
        }
        if (stored != null && value.equals(mask(stored))) {
            return stored;
        }
        String v = value.strip();
        if (v.isEmpty()) {
            return v;
        }
        if (v.contains("…") || v.equals("****")) {
            throw ApiException.badRequest(field, "'" + field + "' looks masked; send the real secret, or leave it out to keep the stored one.");
        }
        for (int i = 0; i < v.length(); i++) {
            char ch = v.charAt(i);
            if (ch < 0x21 || ch > 0x7e) {
                throw ApiException.badRequest(field, "'" + field + "' must contain only visible ASCII characters (it is sent in an HTTP header).");
            }
        }
        return v;
    }

    private String rateLimitOverrides(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest("rateLimitOverrides", "'rateLimitOverrides' must be an object.");
        }
        Iterator<Map.Entry<String, JsonNode>> it = n.properties().iterator();
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
                v.properties().forEach(m -> {
                    if (!m.getValue().isIntegralNumber() || !m.getValue().canConvertToInt() || m.getValue().asInt() < 1
                            || m.getValue().asInt() > 100_000) {
                        throw ApiException.badRequest(path + "." + m.getKey(), "'" + path + "." + m.getKey() + "' must be a positive integer.");
                    }
                });
            } else if (!v.isNull() && (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0 || v.asLong() > MAX_OVERRIDE)) {
                throw ApiException.badRequest(path, "'" + path + "' must be an integer between 0 and " + MAX_OVERRIDE + ".");
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
