package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.Inet6Address;
import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads one field of a provider-connection body (SPEC AD-1): absent or null gives the default,
 * a value of the wrong kind is a 400 that names the field.
 */
final class ConnectionFields {

    private static final Pattern IPV4 = Pattern.compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

    private ConnectionFields() {
    }

    static String requiredString(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            throw ApiException.badRequest(field, "'" + field + "' is required.");
        }
        if (!n.isTextual() || n.asText().isBlank()) {
            throw ApiException.badRequest(field, "'" + field + "' must be a non-empty string.");
        }
        return n.asText().strip();
    }

    static String optionalString(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual()) {
            throw ApiException.badRequest(field, "'" + field + "' must be a string.");
        }
        return n.asText();
    }

    static int optionalInt(ObjectNode body, String field, int dflt, int min, int max) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isIntegralNumber() || n.asLong() < min || n.asLong() > max) {
            throw ApiException.badRequest(field, "'" + field + "' must be an integer between " + min + " and " + max + ".");
        }
        return n.asInt();
    }

    static boolean optionalBoolean(ObjectNode body, String field, boolean dflt) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isBoolean()) {
            throw ApiException.badRequest(field, "'" + field + "' must be true or false.");
        }
        return n.asBoolean();
    }

    static String optionalObject(ObjectNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw ApiException.badRequest(field, "'" + field + "' must be a JSON object.");
        }
        return n.toString();
    }

    /**
     * An absolute URL with one of the schemes, a host, a port in 1–65535 when one is given, and no
     * query or fragment (a base URL gets paths appended, so either would end up inside the request
     * line). The scheme is stored lower case: RFC 3986 §3.1 makes it case-insensitive, and the
     * rest of Sluice compares it as written. A trailing slash is dropped.
     */
    static String url(ObjectNode body, String field, Set<String> schemes) {
        String v = optionalString(body, field);
        if (v == null || v.isBlank()) {
            return null;
        }
        String what = "'" + field + "' must be an absolute " + String.join("/", schemes.stream().sorted().toList()) + " URL";
        URI u;
        try {
            u = new URI(v.strip());
        } catch (URISyntaxException e) {
            throw ApiException.badRequest(field, "'" + field + "' is not a valid URL: " + e.getReason() + ".");
        }
        if (u.getScheme() == null || !schemes.contains(u.getScheme().toLowerCase(Locale.ROOT))) {
            throw ApiException.badRequest(field, what + ".");
        }
        if (u.getHost() == null) {
            // a port past 65535 or other non-server authority leaves URI without a host
            throw ApiException.badRequest(field, what + " with a host and, if given, a port between 1 and 65535.");
        }
        if (u.getPort() != -1 && (u.getPort() < 1 || u.getPort() > 65_535)) {
            throw ApiException.badRequest(field, "'" + field + "' has port " + u.getPort() + "; a port must be between 1 and 65535.");
        }
        if (u.getRawQuery() != null || u.getRawFragment() != null) {
            throw ApiException.badRequest(field, what + " without a query ('?') or fragment ('#').");
        }
        String path = u.getRawPath() == null ? "" : u.getRawPath();
        if (dotSegment(path)) {
            // an upstream or proxy would resolve it elsewhere than the URL shown (issue 29)
            throw ApiException.badRequest(field, "'" + field + "' must not contain '.' or '..' path segments.");
        }
        String s = u.toString();
        s = u.getScheme().toLowerCase(Locale.ROOT) + s.substring(u.getScheme().length());
        return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
    }

    /** Whether a raw path has a {@code .} or {@code ..} segment (percent-encoded ones included). */
    private static boolean dotSegment(String rawPath) {
        for (String seg : rawPath.split("/", -1)) {
            String d = seg.replace("%2e", ".").replace("%2E", ".");
            if (d.equals(".") || d.equals("..")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The {@code proxyUrl}: an absolute {@code http://[user:password@]host:port} URL, the port
     * given (a proxy has no well-known port to guess) and no path (a proxy is addressed by host and
     * port only; a path would be silently dropped), issue 29.
     *
     * @param body the request body
     * @return the URL, or null when absent
     */
    static String proxyUrl(ObjectNode body) {
        String v = url(body, "proxyUrl", Set.of("http"));
        if (v == null) {
            return null;
        }
        URI u = URI.create(v);
        if (u.getPort() == -1) {
            throw ApiException.badRequest("proxyUrl", "'proxyUrl' must give the proxy's port (http://host:port).");
        }
        if (u.getRawPath() != null && !u.getRawPath().isEmpty() && !u.getRawPath().equals("/")) {
            throw ApiException.badRequest("proxyUrl", "'proxyUrl' must not have a path: a proxy is addressed by host and port only.");
        }
        return v;
    }

    /**
     * Whether an IP literal is a loopback address or held by one of this machine's network
     * interfaces (the only addresses an outgoing socket can bind to).
     */
    static boolean isLocalAddress(String literal) {
        try {
            InetAddress a = InetAddress.getByName(literal);
            return a.isLoopbackAddress() || NetworkInterface.getByInetAddress(a) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether {@code s} is an IPv4 or IPv6 address literal (never a name to look up). */
    static boolean isIpLiteral(String s) {
        if (IPV4.matcher(s).matches()) {
            return true;
        }
        if (!IPV6.matcher(s).matches()) {
            return false;
        }
        try {
            // a string with ':' is parsed as an IPv6 literal, never looked up in DNS
            return InetAddress.getByName(s) instanceof Inet6Address;
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
