package dev.sluice.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;

/** JSON in and out of handlers, with the request body limit (SPEC API-6: 413 past it). */
final class Json {

    static final io.helidon.http.Header CONTENT_TYPE_JSON = HeaderValues.create(HeaderNames.CONTENT_TYPE, "application/json");

    private final ObjectMapper mapper;
    private final long maxBodyBytes;

    Json(ObjectMapper mapper, long maxBodyBytes) {
        this.mapper = mapper;
        this.maxBodyBytes = maxBodyBytes;
    }

    ObjectMapper mapper() {
        return mapper;
    }

    ObjectNode object() {
        return mapper.createObjectNode();
    }

    /** Reads the body, refusing more than the limit with 413 before reading it all. */
    byte[] body(ServerRequest req) {
        Optional<Long> declared = req.headers().contentLength().isPresent()
                ? Optional.of(req.headers().contentLength().getAsLong()) : Optional.empty();
        if (declared.isPresent() && declared.get() > maxBodyBytes) {
            throw tooLarge();
        }
        if (!req.content().hasEntity()) {
            return new byte[0];
        }
        try (InputStream in = req.content().inputStream()) {
            byte[] bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBodyBytes + 1));
            if (bytes.length > maxBodyBytes) {
                throw tooLarge();
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private ApiException tooLarge() {
        return new ApiException(413, "invalid_request_error", "request_too_large",
                "Request body exceeds the limit of " + maxBodyBytes + " bytes.", null, java.util.Map.of());
    }

    /** Reads the body as a JSON object, 400 when it is not one. */
    ObjectNode objectBody(ServerRequest req) {
        byte[] bytes = body(req);
        if (bytes.length == 0) {
            throw ApiException.badRequest(null, "Request body is empty; expected a JSON object.");
        }
        try {
            JsonNode n = mapper.readTree(bytes);
            if (n instanceof ObjectNode o) {
                return o;
            }
            throw ApiException.badRequest(null, "Request body must be a JSON object.");
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest(null, "Request body is not valid JSON (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ").");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void send(ServerResponse res, int status, JsonNode body) {
        try {
            send(res, status, mapper.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void send(ServerResponse res, int status, byte[] json) {
        res.status(Status.create(status));
        res.header(CONTENT_TYPE_JSON);
        res.send(json);
    }
}
