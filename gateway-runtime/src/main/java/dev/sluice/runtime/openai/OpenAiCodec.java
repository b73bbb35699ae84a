package dev.sluice.runtime.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.api.chat.EmbeddingRequest;
import dev.sluice.api.chat.StreamChunk;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.UpstreamError;

/**
 * OpenAI Chat Completions JSON ⇄ canonical model: the one entry point the HTTP services and the
 * executor use. Each direction lives in its own package-private class ({@link RequestReader},
 * {@link RequestWriter}, {@link ResponseReader}, {@link ResponseWriter}, {@link ChunkReader},
 * {@link ChunkWriter}, {@link ErrorReader}); this facade owns the one mapper they share.
 * Parameters the canonical model does not name travel as raw JSON in {@code extra}, so OpenAI →
 * OpenAI loses nothing at the top level. Thread-safe.
 */
public final class OpenAiCodec {

    /** The SSE terminator OpenAI clients expect. */
    public static final byte[] DONE_EVENT = ChunkWriter.DONE_EVENT;

    /** Longest accepted model string. */
    static final int MAX_MODEL_LENGTH = JsonFields.MAX_MODEL_LENGTH;

    private final ObjectMapper mapper = dev.sluice.runtime.io.JsonMappers.create().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private final JsonFactory factory = mapper.getFactory();
    private final RequestReader requests = new RequestReader(mapper);
    private final RequestWriter requestWriter = new RequestWriter(factory);
    private final ResponseReader responses = new ResponseReader(mapper);
    private final ResponseWriter responseWriter = new ResponseWriter(factory);
    private final ChunkReader chunks = new ChunkReader(mapper);
    private final ChunkWriter chunkWriter = new ChunkWriter(factory);
    private final ErrorReader errors = new ErrorReader(mapper);

    /**
     * Whether a client asked for a stream's usage chunk itself ({@code stream_options.include_usage});
     * Sluice asks upstreams for it regardless, and strips it from the stream of a client that did not.
     *
     * @param r the client's request
     * @return true when the client asked
     */
    public static boolean clientAskedForUsage(ChatRequest r) {
        return RequestWriter.clientAskedForUsage(r.extra());
    }

    /**
     * The shared mapper (for callers that parse other OpenAI-shaped JSON).
     *
     * @return the mapper
     */
    public ObjectMapper mapper() {
        return mapper;
    }

    /**
     * Parses and validates a client's chat request.
     *
     * @param body the request body
     * @return the canonical request
     * @throws InvalidRequestException naming the field when the body is invalid
     */
    public ChatRequest readChatRequest(byte[] body) {
        return requests.readChatRequest(body);
    }

    /**
     * Serialises a canonical request for an OpenAI-compatible upstream.
     *
     * @param r the request
     * @return JSON bytes
     */
    public byte[] writeChatRequest(ChatRequest r) {
        return requestWriter.writeChatRequest(r);
    }

    /**
     * Parses and validates a client's embeddings request.
     *
     * @param body the request body
     * @return the request
     */
    public EmbeddingRequest readEmbeddingRequest(byte[] body) {
        return requests.readEmbeddingRequest(body);
    }

    /**
     * Serialises an embeddings request.
     *
     * @param r the request
     * @return JSON bytes
     */
    public byte[] writeEmbeddingRequest(EmbeddingRequest r) {
        return requestWriter.writeEmbeddingRequest(r);
    }

    /**
     * Parses an upstream chat completion.
     *
     * @param body the body
     * @return the canonical answer
     * @throws InvalidRequestException when the body is not a chat completion
     */
    public ChatResponse readChatResponse(byte[] body) {
        return responses.read(body);
    }

    /**
     * Serialises a canonical answer as an OpenAI chat completion.
     *
     * @param r the answer
     * @return JSON bytes
     */
    public byte[] writeChatResponse(ChatResponse r) {
        return responseWriter.write(r);
    }

    /**
     * Parses one SSE chunk payload.
     *
     * @param json the {@code data:} payload
     * @return the chunk
     */
    public StreamChunk readChunk(String json) {
        return chunks.read(json);
    }

    /**
     * Serialises a chunk as one SSE event ({@code data: {...}\n\n}).
     *
     * @param c the chunk
     * @return the event bytes
     */
    public byte[] writeChunkEvent(StreamChunk c) {
        return chunkWriter.writeEvent(c);
    }

    /**
     * Reads an upstream error body ({@code {"error":{"message","type","code"}}} and common variants).
     *
     * @param head status and headers
     * @param body body text
     * @return the error
     */
    public UpstreamError readError(ResponseHead head, String body) {
        return errors.read(head, body);
    }
}
