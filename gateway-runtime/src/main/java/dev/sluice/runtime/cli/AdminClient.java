package dev.sluice.runtime.cli;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * The admin API of a running server, for the CLI: JSON in and out, the admin key on every request,
 * and every way a call can fail turned into one {@link Failure} whose message the operator can act
 * on (the server's own error message for an error answer, "is it running?" for a refused
 * connection). The JDK client suffices here: a CLI makes one or two calls.
 */
final class AdminClient {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    /** How much of a body that is not Sluice's error envelope is shown. */
    static final int SHOWN_BODY_CHARS = 300;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final String adminKey;
    private final HttpClient http;

    /**
     * A client.
     *
     * @param base the server, e.g. {@code http://127.0.0.1:20128} (a path prefix is kept)
     * @param adminKey the admin key
     * @param http the HTTP client; the caller closes it
     */
    AdminClient(URI base, String adminKey, HttpClient http) {
        String b = requireNonNull(base, "base is null").toString();
        this.base = b.endsWith("/") ? b.substring(0, b.length() - 1) : b;
        this.adminKey = requireNonNull(adminKey, "adminKey is null");
        this.http = requireNonNull(http, "http is null");
    }

    /** A call that did not give a 2xx JSON answer; the message is for the operator. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message, null, false, false);
        }
    }

    JsonNode get(String path) throws Failure {
        return send(request(path).GET().build());
    }

    JsonNode post(String path, JsonNode body) throws Failure {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build());
    }

    JsonNode patch(String path, JsonNode body) throws Failure {
        return send(request(path).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(body.toString())).build());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_TIMEOUT)
                .header("Authorization", "Bearer " + adminKey).header("Accept", "application/json");
    }

    private JsonNode send(HttpRequest request) throws Failure {
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpConnectTimeoutException e) {
            throw new Failure("cannot connect to Sluice at " + base + ": no answer within " + CONNECT_TIMEOUT.toSeconds()
                    + " s. Is the server running there? (SLUICE_URL sets its address)");
        } catch (ConnectException e) {
            throw new Failure("cannot connect to Sluice at " + base + ": connection refused. Is the server running?"
                    + " (SLUICE_URL sets its address)");
        } catch (HttpTimeoutException e) {
            throw new Failure(request.method() + " " + request.uri().getPath() + ": no answer from " + base + " within "
                    + REQUEST_TIMEOUT.toSeconds() + " s");
        } catch (IOException e) {
            throw new Failure(request.method() + " " + request.uri().getPath() + " to " + base + " failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("interrupted");
        }
        int status = response.statusCode();
        JsonNode body = parse(response.body());
        if (status / 100 != 2) {
            throw new Failure(errorMessage(request, status, body, response.body()));
        }
        if (body == null || !body.isObject()) {
            throw new Failure(request.method() + " " + request.uri().getPath() + ": the answer from " + base
                    + " is not a JSON object; is SLUICE_URL a Sluice server? Got: " + shorten(response.body()));
        }
        return body;
    }

    /** Sluice's error envelope ({@code {"error": {"message", "code"}}}) when there is one, else the raw body. */
    private static String errorMessage(HttpRequest request, int status, JsonNode body, String raw) {
        String call = request.method() + " " + request.uri().getPath() + ": the server answered " + status;
        JsonNode error = body == null ? null : body.path("error");
        if (error != null && error.path("message").isTextual()) {
            String code = error.path("code").asText("");
            return call + (code.isEmpty() ? "" : " " + code) + ": " + error.path("message").asText();
        }
        return raw == null || raw.isBlank() ? call + " with an empty body" : call + ": " + shorten(raw);
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    private static String shorten(String s) {
        String one = s.strip().replaceAll("\\s*\\R\\s*", " ");
        return one.length() <= SHOWN_BODY_CHARS ? one : one.substring(0, SHOWN_BODY_CHARS) + "…";
    }

    static ObjectMapper json() {
        return JSON;
    }
}
