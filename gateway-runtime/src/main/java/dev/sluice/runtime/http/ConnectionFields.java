package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.Inet6Address;
import java.net.InetAddress;
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

    static String url(ObjectNode body, String field, Set<String> schemes) {
        String v = optionalString(body, field);
        if (v == null || v.isBlank()) {
            return null;
        }
        try {
            URI u = new URI(v.strip());
            if (u.getScheme() == null || !schemes.contains(u.getScheme().toLowerCase(Locale.ROOT)) || u.getHost() == null) {
                throw ApiException.badRequest(field, "'" + field + "' must be an absolute " + String.join("/", schemes.stream().sorted().toList()) + " URL.");
            }
            String s = u.toString();
            return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        } catch (URISyntaxException e) {
            throw ApiException.badRequest(field, "'" + field + "' is not a valid URL: " + e.getReason() + ".");
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
