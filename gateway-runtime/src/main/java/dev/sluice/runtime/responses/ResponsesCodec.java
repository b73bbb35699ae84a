package dev.sluice.runtime.responses;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.api.chat.ChatResponse;
import java.io.UncheckedIOException;
import java.util.Map;

/** The Responses API's wire forms: requests read, answers and streams written (SPEC API-7). */
public final class ResponsesCodec {

    private final ObjectMapper mapper;
    private final ResponsesRequestReader reader;
    private final ResponseObjects objects;

    /**
     * Creates the codec.
     *
     * @param mapper the JSON mapper
     */
    public ResponsesCodec(ObjectMapper mapper) {
        this.mapper = mapper;
        this.reader = new ResponsesRequestReader(mapper);
        this.objects = new ResponseObjects(mapper);
    }

    /**
     * Reads a request body.
     *
     * @param body the body
     * @return the request
     */
    public ResponsesRequest read(byte[] body) {
        return reader.read(body);
    }

    /** The top-level field a passed-through body must lose; when present the body goes through a tree. */
    private static final java.util.Set<String> BACKGROUND = java.util.Set.of("background");

    /**
     * The client's body as an upstream that serves the Responses API gets it: unchanged but for
     * {@code model}, and without {@code background} (Sluice serves it synchronously, OF-1: the
     * answer is the response, there is nothing to poll).
     *
     * @param body the client's body (already read by {@link #read})
     * @param model the upstream model id
     * @return the upstream body
     */
    public byte[] forUpstream(byte[] body, String model) {
        // spliced when there is no "background" to remove (issue 26: no second parse of the body)
        byte[] spliced = dev.sluice.runtime.io.TopLevelFields.withString(body, "model", model, BACKGROUND);
        if (spliced != null) {
            return spliced;
        }
        try {
            ObjectNode tree = (ObjectNode) mapper.readTree(body);
            tree.put("model", model);
            tree.remove("background");
            return mapper.writeValueAsBytes(tree);
        } catch (java.io.IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The answer to a request that was not streamed.
     *
     * @param r the canonical answer
     * @param id the response id
     * @param createdAt epoch seconds
     * @param echo request fields the answer repeats
     * @param customTools names of the request's custom tools (their calls are custom_tool_call items)
     * @return the {@code response} object's bytes
     */
    public byte[] write(ChatResponse r, String id, long createdAt, Map<String, String> echo, java.util.Set<String> customTools) {
        try {
            return mapper.writeValueAsBytes(objects.completed(r, id, createdAt, echo, customTools));
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A translator for one stream.
     *
     * @param id the response id
     * @param model the model when chunks name none
     * @param createdAt epoch seconds
     * @param echo request fields the snapshots repeat
     * @param customTools names of the request's custom tools
     * @return the translator
     */
    public ResponsesStreamTranslator stream(String id, String model, long createdAt, Map<String, String> echo,
            java.util.Set<String> customTools) {
        return new ResponsesStreamTranslator(mapper, id, model, createdAt, echo, customTools);
    }
}
