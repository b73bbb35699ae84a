package dev.sluice.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.io.BoundedReads;
import dev.sluice.runtime.openai.JsonFields;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;

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

    /**
     * Reads the body, refusing more than the limit with 413. An oversized body is still read
     * and discarded (up to {@link #MAX_DRAIN_BYTES}) before answering: a client that is still
     * sending when the server answers and closes would see a connection reset instead of the 413.
     */
    byte[] body(ServerRequest req) {
        if (!req.content().hasEntity()) {
            return new byte[0];
        }
        boolean declaredTooLarge = req.headers().contentLength().isPresent()
                && req.headers().contentLength().getAsLong() > maxBodyBytes;
        if (declaredTooLarge && req.headers().contains(HeaderValues.EXPECT_100)) {
            // Helidon sends "100 Continue" when the entity is first read: a client that waits for it is answered at once (issue 29)
            throw tooLarge();
        }
        try (InputStream in = req.content().inputStream()) {
            if (!declaredTooLarge) {
                long declared = req.headers().contentLength().isPresent() ? req.headers().contentLength().getAsLong() : -1;
                byte[] bytes = BoundedReads.read(in, declared, maxBodyBytes);
                if (bytes.length <= maxBodyBytes) {
                    return bytes;
                }
            }
            drain(in);
            throw tooLarge();
        } catch (IOException | RuntimeException e) {
            if (e instanceof ApiException api) {
                throw api;
            }
            // a malformed chunked encoding or a client that stopped sending mid-body
            throw ApiException.badRequest(null, "The request body could not be read (malformed or incomplete).");
        }
    }

    /** Oversized bodies are discarded up to this size; past it the connection is simply closed. */
    static final long MAX_DRAIN_BYTES = 256L * 1024 * 1024;

    private static void drain(InputStream in) throws IOException {
        byte[] buf = new byte[64 * 1024];
        long total = 0;
        int n;
        while (total < MAX_DRAIN_BYTES && (n = in.read(buf)) > 0) {
            total += n;
        }
    }

    private ApiException tooLarge() {
        return new ApiException(413, "invalid_request_error", "request_too_large",
                "Request body exceeds the limit of " + maxBodyBytes + " bytes.", null, java.util.Map.of());
    }

    /**
     * Reads an admin body as a JSON object; 400 naming the problem when it is not one (same rules
     * as the codecs) or when a string is too long or not text ({@link AdminStrings}).
     */
    ObjectNode objectBody(ServerRequest req) {
        ObjectNode o = JsonFields.parseObject(mapper, body(req));
        AdminStrings.check(o);
        return o;
    }

    void send(ServerResponse res, int status, JsonNode body) {
        try {
            send(res, status, mapper.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends a JSON body. Bodies past {@value #COPIED_BYTES} bytes are written through the response's
     * stream with their {@code Content-Length}, in copied slices (issue 29): Helidon's
     * {@code send(byte[])} copies a body into one buffer with the head, grown to twice the body when
     * the head passes 256 bytes (ours always does); until issue 26 made server writes direct, that
     * buffer waited in the connection's write queue until a slow client had read it, after the
     * request (and its room in {@code upstream.answerBufferBytes}) ended: a heap dump of the answers
     * flood's OutOfMemoryError held five such 24 MiB buffers for 12 MiB answers. The slices still
     * keep Helidon's copy of a large body at 64 KiB.
     */
    static void send(ServerResponse res, int status, byte[] json) {
        res.status(Status.create(status));
        res.header(CONTENT_TYPE_JSON);
        if (json.length <= COPIED_BYTES) {
            res.send(json);
            return;
        }
        res.header(HeaderNames.CONTENT_LENGTH, Integer.toString(json.length));
        try (OutputStream out = res.outputStream()) {
            StreamResponse.writeSliced(out, json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Bodies up to this size go out in one write, joined with the head. */
    static final int COPIED_BYTES = StreamResponse.MAX_WRITE_BYTES;
}
