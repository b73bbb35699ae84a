package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A small HTTP client for a running Sluice: JSON in, JSON out, and failures that show the
 * response and the server's output.
 */
final class SluiceClient {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

    private final URI base;
    private final Supplier<String> serverOutput;

    SluiceClient(SluiceProcess sluice) {
        this.base = sluice.baseUrl();
        this.serverOutput = sluice::output;
    }

    /** The server's base address. */
    URI base() {
        return base;
    }

    /** What the server printed so far. */
    String serverOutput() {
        return serverOutput.get();
    }

    HttpResponse<String> get(String path, String bearer) {
        return send(request(path, bearer).GET().build());
    }

    HttpResponse<String> post(String path, String bearer, Object body) {
        return send(request(path, bearer)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(toJson(body)))
                .build());
    }

    /** A call of the exclusive-lease API ({@code POST /api/v1/session-leases}) by an owner. */
    HttpResponse<String> lease(String bearer, String owner, Object body) {
        return send(request("/api/v1/session-leases", bearer)
                .header("Content-Type", "application/json")
                .header("X-Sluice-Lease-Owner", owner)
                .POST(HttpRequest.BodyPublishers.ofString(toJson(body)))
                .build());
    }

    HttpResponse<String> patch(String path, String bearer, Object body) {
        return send(request(path, bearer)
                .header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(toJson(body)))
                .build());
    }

    private HttpRequest.Builder request(String path, String bearer) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(REQUEST_TIMEOUT);
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return b;
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new AssertionError(request.method() + " " + request.uri() + " failed: " + e + "\nserver output:\n"
                    + serverOutput.get(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /**
     * Asserts the status and parses the JSON body.
     *
     * @return the body as a tree
     */
    JsonNode expect(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(() -> describe(response)).isEqualTo(status);
        try {
            return JSON.readTree(response.body());
        } catch (JsonProcessingException e) {
            throw new AssertionError("not JSON: " + describe(response), e);
        }
    }

    /** The request, the response and the server output, for assertion messages. */
    String describe(HttpResponse<String> response) {
        return response.request().method() + " " + response.request().uri() + " -> " + response.statusCode() + " "
                + response.headers().map() + "\n" + response.body() + "\nserver output:\n" + serverOutput.get();
    }

    /** {@code POST /api/providers}: an API-key connection; returns its id. */
    String createConnection(String adminKey, String provider, String apiKey, String baseUrl) {
        JsonNode created = expect(post("/api/providers", adminKey,
                Map.of("provider", provider, "authType", "apikey", "apiKey", apiKey, "baseUrl", baseUrl)), 201);
        assertThat(created.path("id").isTextual()).as("id in %s", created).isTrue();
        return created.get("id").asText();
    }

    /** {@code POST /api/keys}; returns the secret key. */
    String createKey(String adminKey, String name) {
        JsonNode created = expect(post("/api/keys", adminKey, Map.of("name", name)), 201);
        assertThat(created.path("key").isTextual()).as("key in %s", created).isTrue();
        return created.get("key").asText();
    }

    /** A one-message chat request body; {@code "stream": true} only when asked for. */
    static Map<String, Object> chat(String model, boolean stream) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("model", model);
        body.put("messages", List.of(Map.of("role", "user", "content", "hi")));
        if (stream) {
            body.put("stream", true);
        }
        return body;
    }

    /** The values of {@code field} of the elements of {@code data} in a list answer. */
    static List<String> listed(JsonNode listAnswer, String field) {
        List<String> values = new ArrayList<>();
        listAnswer.path("data").forEach(e -> values.add(e.path(field).asText()));
        return values;
    }

    static String toJson(Object body) {
        if (body instanceof String s) {
            return s;
        }
        try {
            return JSON.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
