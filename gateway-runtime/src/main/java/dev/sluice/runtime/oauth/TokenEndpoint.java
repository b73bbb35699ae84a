package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.TokenEncoding;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.toolkit.json.Json;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

/**
 * Posts one grant to an authorization server (token or device endpoint) and reads its answer.
 * Secrets sent are masked out of every reason it returns, in case a server echoes them. A grant
 * leaves through the egress route of the connection it is for (its {@code proxyUrl}, or the
 * {@code proxyUrl} a login was started with), as that connection's upstream calls do.
 */
public final class TokenEndpoint {

    /** Answers are read up to this size; a token answer is a few kilobytes. */
    static final int MAX_ANSWER_BYTES = 64 * 1024;
    /** The longest error description quoted. */
    private static final int MAX_DESCRIPTION = 200;

    private final Function<EgressRoute, UpstreamHttp> routes;
    private final Duration timeout;

    private TokenEndpoint(Function<EgressRoute, UpstreamHttp> routes, Duration timeout) {
        this.routes = routes;
        this.timeout = timeout;
    }

    /**
     * Creates the endpoint client that sends each grant through its egress route.
     *
     * @param routes the client of each egress route (the host's {@code EgressRoutes::route})
     * @param timeout bound on each request
     * @return the client
     */
    public static TokenEndpoint routed(Function<EgressRoute, UpstreamHttp> routes, Duration timeout) {
        return new TokenEndpoint(routes, timeout);
    }

    /**
     * Creates the endpoint client that sends every grant through one client, whatever its egress route.
     *
     * @param http the HTTP client
     * @param timeout bound on each request
     * @return the client
     */
    public static TokenEndpoint direct(UpstreamHttp http, Duration timeout) {
        return new TokenEndpoint(way -> http, timeout);
    }

    /** What a grant came back with. */
    public sealed interface Reply {
    }

    /**
     * A 2xx JSON object.
     *
     * @param fields its members
     */
    public record Issued(Map<String, Object> fields) implements Reply {
        @Override
        public String toString() {
            return "Issued" + fields.keySet();
        }
    }

    /**
     * A non-2xx answer.
     *
     * @param status the HTTP status
     * @param error the OAuth {@code error} code, or null
     * @param reason a one-line description, without secrets
     */
    public record Refused(int status, String error, String reason) implements Reply {
    }

    /**
     * No usable answer (transport failure, or a 2xx that is not a JSON object).
     *
     * @param reason why
     */
    public record Unreachable(String reason) implements Reply {
    }

    /**
     * Posts a grant directly (no proxy, no local address).
     *
     * @param url the endpoint
     * @param encoding form or JSON
     * @param params the grant's parameters
     * @return the reply
     */
    public Reply post(String url, TokenEncoding encoding, Map<String, String> params) {
        return post(EgressRoute.DIRECT, url, encoding, params);
    }

    /**
     * Posts a grant through an egress route.
     *
     * @param way the route: the connection's {@code localAddress} and {@code proxyUrl}
     * @param url the endpoint
     * @param encoding form or JSON
     * @param params the grant's parameters
     * @return the reply
     */
    public Reply post(EgressRoute way, String url, TokenEncoding encoding, Map<String, String> params) {
        String body = encoding == TokenEncoding.JSON ? Json.write(params) : form(params);
        Map<String, String> headers = Map.of("content-type",
                encoding == TokenEncoding.JSON ? "application/json" : "application/x-www-form-urlencoded", "accept", "application/json");
        UpstreamRequest request = new UpstreamRequest("POST", URI.create(url), headers, body.getBytes(StandardCharsets.UTF_8), timeout);
        int status;
        String text;
        UpstreamResponse response;
        try {
            response = routes.apply(way).send(request);
        } catch (IOException e) {
            return new Unreachable(scrub("authorization server unreachable: " + TransportError.of(e).describe(), params));
        }
        try (response) {
            status = response.head().status();
            text = response.bodyText(MAX_ANSWER_BYTES);
        } catch (IOException e) {
            return new Unreachable(scrub("reading the authorization server's answer failed: " + TransportError.of(e).describe(), params));
        }
        Map<String, Object> root = null;
        try {
            root = Json.parseObject(text);
        } catch (IllegalArgumentException e) {
            // not JSON: the status says enough
        }
        if (status >= 200 && status <= 299) {
            return root == null ? new Unreachable("authorization server answered HTTP " + status + " with a body that is not a JSON object")
                    : new Issued(root);
        }
        String error = root == null ? null : Json.string(root, "error");
        String description = root == null ? null : Json.string(root, "error_description");
        if (error == null && root != null && root.get("error") instanceof Map<?, ?> m) {
            // Anthropic's envelope {"type":"error","error":{"type","message"}}
            error = Json.string(m, "type");
            description = Json.string(m, "message");
        }
        StringBuilder reason = new StringBuilder("authorization server answered HTTP ").append(status);
        if (error != null) {
            reason.append(" (").append(printable(error, 64));
            if (description != null && !description.isBlank()) {
                reason.append(": ").append(printable(description, MAX_DESCRIPTION));
            }
            reason.append(')');
        }
        return new Refused(status, error, scrub(reason.toString(), params));
    }

    private static String form(Map<String, String> params) {
        StringBuilder sb = new StringBuilder();
        params.forEach((k, v) -> {
            if (!sb.isEmpty()) {
                sb.append('&');
            }
            sb.append(URLEncoder.encode(k, StandardCharsets.UTF_8)).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8));
        });
        return sb.toString();
    }

    /** The text without the values of secret parameters. */
    private static String scrub(String text, Map<String, String> params) {
        String out = text;
        for (String key : new String[] {"code", "code_verifier", "refresh_token", "device_code", "device_auth_id", "client_secret"}) {
            String v = params.get(key);
            if (v != null && v.length() >= 4) {
                out = out.replace(v, "***");
            }
        }
        return out;
    }

    private static String printable(String s, int max) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), max));
        for (int i = 0; i < s.length() && sb.length() < max; i++) {
            char c = s.charAt(i);
            sb.append(Character.isISOControl(c) ? ' ' : c);
        }
        return s.length() > max ? sb.append('…').toString() : sb.toString();
    }
}
