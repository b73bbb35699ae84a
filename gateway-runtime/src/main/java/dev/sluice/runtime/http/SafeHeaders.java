package dev.sluice.runtime.http;

import io.helidon.http.HeaderName;
import io.helidon.webserver.http.ServerResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Response header values that can always be written (issue 29, point 3). Helidon checks every
 * header value when the head is sent — no control characters, no whitespace first — and a value
 * that fails turns an answer the upstream already served (and billed) into a 500. Values that carry
 * names from clients or upstreams (a model, a tool) are made writable here: anything outside
 * visible ASCII, or whitespace at either end, is percent-encoded (UTF-8); a value that still could
 * not be written is dropped and logged at debug, never thrown.
 */
final class SafeHeaders {

    private static final System.Logger LOG = System.getLogger(SafeHeaders.class.getName());

    private SafeHeaders() {
    }

    /**
     * A value Helidon writes as it is, or its percent-encoding.
     *
     * @param value the value
     * @return the writable value
     */
    static String safe(String value) {
        int last = value.length() - 1;
        for (int i = 0; i <= last; i++) {
            char ch = value.charAt(i);
            if (ch < 0x20 || ch > 0x7e || (ch == ' ' && (i == 0 || i == last))) {
                return URLEncoder.encode(value, StandardCharsets.UTF_8);
            }
        }
        return value;
    }

    /**
     * Sets a header to the writable form of a value; drops it when even that cannot be written.
     *
     * @param res the response
     * @param name the header
     * @param value the value
     */
    static void set(ServerResponse res, HeaderName name, String value) {
        try {
            res.header(name, safe(value));
        } catch (IllegalArgumentException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> "header " + name.defaultCase() + " dropped: " + e.getMessage());
        }
    }
}
