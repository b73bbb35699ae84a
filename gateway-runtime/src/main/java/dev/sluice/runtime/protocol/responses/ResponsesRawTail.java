package dev.sluice.runtime.protocol.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.stream.SseEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * What a Responses stream passed through has said so far, so that a stream the gateway must end
 * (a watchdog, an upstream cut) ends the way the SDKs expect: an {@code error} event, then
 * {@code response.failed} for the upstream's response id, both continuing its sequence numbers.
 * Not thread-safe: one stream's.
 */
final class ResponsesRawTail {

    private final ObjectMapper mapper;
    private ObjectNode response;
    private long nextSequence;

    ResponsesRawTail(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** Notes an event relayed to the client. */
    void saw(SseEvent event) {
        String data = event.data();
        if (data == null) {
            return;
        }
        boolean created = "response.created".equals(event.type()) || "response.in_progress".equals(event.type());
        if (created && response == null) {
            try {
                // kept for the stream's life: a large event is parsed only when its tree stays near its size (issue 29)
                dev.sluice.runtime.io.AnswerBuffers.checkStreamEvent(data);
                JsonNode tree = mapper.readTree(data);
                if (tree.path("response").isObject()) {
                    response = (ObjectNode) tree.path("response");
                }
                nextSequence = Math.max(nextSequence, tree.path("sequence_number").asLong(-1) + 1);
            } catch (IOException e) {
                // not JSON, or too many values for its size: the tail is written without the upstream's id
            }
            return;
        }
        int at = data.lastIndexOf("\"sequence_number\":");
        if (at >= 0) {
            int i = at + 18;
            while (i < data.length() && data.charAt(i) == ' ') {
                i++;
            }
            long n = 0;
            boolean digits = false;
            while (i < data.length() && Character.isDigit(data.charAt(i))) {
                n = n * 10 + (data.charAt(i++) - '0');
                digits = true;
            }
            if (digits) {
                nextSequence = Math.max(nextSequence, n + 1);
            }
        }
    }

    /** The events that end the stream as failed. */
    byte[] failed(String code, String message) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        ObjectNode error = mapper.createObjectNode().put("type", "error").put("code", code).put("message", message);
        error.putNull("param");
        write(out, "error", error);
        ObjectNode failed = response == null ? mapper.createObjectNode().put("object", "response") : response.deepCopy();
        failed.put("status", "failed");
        failed.set("error", mapper.createObjectNode().put("code", code).put("message", message));
        write(out, "response.failed", mapper.createObjectNode().put("type", "response.failed").set("response", failed));
        return out.toByteArray();
    }

    private void write(ByteArrayOutputStream out, String type, ObjectNode event) {
        event.put("sequence_number", nextSequence++);
        try {
            out.writeBytes(("event: " + type + "\ndata: ").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(mapper.writeValueAsBytes(event));
            out.writeBytes("\n\n".getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
