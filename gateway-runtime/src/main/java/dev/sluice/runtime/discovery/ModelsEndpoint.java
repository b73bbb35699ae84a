package dev.sluice.runtime.discovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One {@code GET {baseUrl}/models} of an OpenAI-compatible upstream and the reading of its
 * {@code data[].id}. Bounded: the upstream client's connect timeout and {@code timeout} for the
 * headers (and the whole answer), {@code upstream.maxAnswerBytes} for the body, and at most
 * {@link #MAX_IDS} ids of at most {@link #MAX_ID_LENGTH} characters.
 */
final class ModelsEndpoint {

    /** The most ids kept from one answer (OpenRouter-like catalogues list a few hundred). */
    static final int MAX_IDS = 5_000;
    /** The longest id kept; longer ones are not model ids a client would type. */
    static final int MAX_ID_LENGTH = 256;

    private final ObjectMapper mapper;
    private final Duration timeout;

    ModelsEndpoint(ObjectMapper mapper, Duration timeout) {
        this.mapper = mapper;
        this.timeout = timeout;
    }

    /**
     * Reads the ids.
     *
     * @param http the client of the connection's egress route
     * @param baseUrl the connection's base URL (with its version path)
     * @param bearer the credential, or null
     * @return the ids, in the upstream's order, without duplicates
     * @throws IOException on a transport failure
     * @throws DiscoveryException when the upstream answered something else than a model list
     */
    List<String> read(UpstreamHttp http, String baseUrl, String bearer) throws IOException {
        Map<String, String> headers = new HashMap<>(4);
        headers.put("Accept", "application/json");
        if (bearer != null && !bearer.isEmpty()) {
            headers.put("Authorization", "Bearer " + bearer);
        }
        try (UpstreamResponse response = http.send(new UpstreamRequest("GET", uri(baseUrl), headers, null, timeout))) {
            int status = response.head().status();
            if (status != 200) {
                // the body is not repeated: an upstream may echo what it was sent
                throw new DiscoveryException("GET /models answered HTTP " + status);
            }
            return ids(response.wholeBody());
        }
    }

    /** {@code {baseUrl}/models}, one slash between them. */
    static URI uri(String baseUrl) {
        String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
        return URI.create(base + "/models");
    }

    /** The {@code data[].id} strings of an OpenAI model list. */
    List<String> ids(byte[] body) {
        JsonNode root;
        try {
            root = mapper.readTree(body);
        } catch (IOException e) {
            throw new DiscoveryException("GET /models answered no JSON");
        }
        JsonNode data = root == null ? null : root.get("data");
        if (data == null || !data.isArray()) {
            throw new DiscoveryException("GET /models answered no 'data' array");
        }
        Set<String> ids = new LinkedHashSet<>();
        for (JsonNode m : data) {
            JsonNode id = m.get("id");
            if (id != null && id.isTextual() && usable(id.asText())) {
                ids.add(id.asText());
                if (ids.size() == MAX_IDS) {
                    break;
                }
            }
        }
        return new ArrayList<>(ids);
    }

    /** An id a client can name: not blank, not too long, no whitespace or control characters. */
    static boolean usable(String id) {
        if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            char ch = id.charAt(i);
            if (Character.isWhitespace(ch) || Character.isISOControl(ch)) {
                return false;
            }
        }
        return true;
    }

    /** The upstream answered, but not a model list: the reason is shown on the connection. */
    static final class DiscoveryException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DiscoveryException(String message) {
            super(message, null, false, false);
        }
    }
}
