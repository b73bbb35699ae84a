package dev.sluice.api.oauth;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.Experimental;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A token endpoint's successful answer, parsed: its JSON members (strings, numbers as
 * {@link Number}, booleans, nested objects as maps, arrays as lists) and when it arrived.
 * {@link #toString()} never shows a value.
 *
 * @param fields the answer's top-level members, unmodifiable
 * @param receivedAtMillis when it arrived, epoch ms on the host's clock ({@code expires_in} counts from it)
 */
@Experimental("issue 36: subscription logins are new")
public record OAuthTokenAnswer(Map<String, Object> fields, long receivedAtMillis) {

    /** Validates and copies. */
    public OAuthTokenAnswer {
        requireNonNull(fields, "fields is null");
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /**
     * A string member.
     *
     * @param name member name
     * @return its value, or null when absent, not a string or empty
     */
    public String string(String name) {
        return fields.get(name) instanceof String s && !s.isEmpty() ? s : null;
    }

    /**
     * An integral number member (a numeric string counts, as some servers send one).
     *
     * @param name member name
     * @return its value, or null when absent or not a number
     */
    public Long number(String name) {
        Object v = fields.get(name);
        if (v instanceof Number n) {
            return n.longValue();
        }
        if (v instanceof String s) {
            try {
                return Long.parseLong(s.strip());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    /**
     * A string member of a nested object, e.g. {@code nested("account", "email_address")}.
     *
     * @param object the member holding an object
     * @param name the member inside it
     * @return the value, or null
     */
    public String nested(String object, String name) {
        return fields.get(object) instanceof Map<?, ?> m && m.get(name) instanceof String s && !s.isEmpty() ? s : null;
    }

    /**
     * When the access token expires: {@code receivedAtMillis + expires_in} seconds.
     *
     * @return epoch ms, or null when the answer has no {@code expires_in}
     */
    public Long expiresAt() {
        Long in = number("expires_in");
        return in == null || in < 0 ? null : receivedAtMillis + in * 1000L;
    }

    @Override
    public String toString() {
        return "OAuthTokenAnswer[members=" + fields.keySet() + ", receivedAtMillis=" + receivedAtMillis + "]";
    }
}
