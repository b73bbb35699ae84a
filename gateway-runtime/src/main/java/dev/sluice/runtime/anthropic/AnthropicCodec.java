package dev.sluice.runtime.anthropic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.runtime.openai.InvalidRequestException;

/**
 * Anthropic Messages JSON ⇄ canonical model, for clients that speak Anthropic (SPEC API-3): the
 * one entry point the HTTP service and the error mapper use. Requests are read by {@link
 * MessagesRequestReader} (top level) and {@link ContentBlockReader} (messages), complete answers
 * written by {@link MessageWriter}, streams translated by {@link AnthropicStreamTranslator}, and
 * Anthropic's names for stop reasons, error types and ids live in {@link WireNames}.
 *
 * <p>The canonical request's {@code extra} is written verbatim onto an OpenAI-compatible wire,
 * and strict upstreams refuse parameters they do not know, so only these top-level fields travel
 * there: {@code metadata.user_id} as {@code user}, {@code thinking} verbatim, {@code
 * tool_choice.disable_parallel_tool_use} as {@code parallel_tool_calls: false}, and for streams
 * {@code stream_options.include_usage} (so the final {@code message_delta} can report output
 * tokens). Every other Anthropic-only field ({@code top_k}, {@code service_tier}, {@code
 * container}, {@code mcp_servers}, block-level {@code cache_control}, thinking signatures,
 * {@code redacted_thinking} blocks, {@code tool_result.is_error}) is validated where cheap and
 * dropped. Thread-safe.
 */
public final class AnthropicCodec {

    private final ObjectMapper mapper = dev.sluice.runtime.io.JsonMappers.create().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private final JsonFactory factory = mapper.getFactory();
    private final MessagesRequestReader requests = new MessagesRequestReader(mapper);
    private final MessageWriter messages = new MessageWriter(mapper);

    /**
     * The mapper the codec parses with.
     *
     * @return the mapper
     */
    public ObjectMapper mapper() {
        return mapper;
    }

    /**
     * Parses and validates a client's Messages request ({@code POST /v1/messages}).
     *
     * @param body the request body
     * @return the canonical request
     * @throws InvalidRequestException naming the field when the body is invalid
     */
    public ChatRequest readMessagesRequest(byte[] body) {
        return requests.read(body, true);
    }

    /**
     * Parses and validates a {@code count_tokens} request: like a Messages request, without
     * {@code max_tokens}.
     *
     * @param body the request body
     * @return the canonical request
     * @throws InvalidRequestException naming the field when the body is invalid
     */
    public ChatRequest readCountTokensRequest(byte[] body) {
        return requests.read(body, false);
    }

    /**
     * Serialises a canonical answer as an Anthropic {@code message}: the first choice's thinking,
     * text and tool calls as content blocks, {@code stop_reason} from its finish reason, usage.
     *
     * @param r the answer
     * @param fallbackId the message id when the upstream gave none
     * @param fallbackModel the model when the upstream named none
     * @return JSON bytes
     */
    public byte[] writeMessage(ChatResponse r, String fallbackId, String fallbackModel) {
        return messages.write(r, fallbackId, fallbackModel);
    }

    /**
     * A translator for one stream.
     *
     * @param fallbackId the message id when the upstream gave none
     * @param fallbackModel the model when the upstream named none
     * @return a new translator (one per stream: it is stateful)
     */
    public AnthropicStreamTranslator streamTranslator(String fallbackId, String fallbackModel) {
        return new AnthropicStreamTranslator(factory, fallbackId, fallbackModel);
    }

    /**
     * Anthropic's {@code stop_reason} for a canonical (OpenAI) finish reason.
     *
     * @param finishReason the finish reason, or null
     * @return the stop reason; {@code end_turn} for an unknown or absent one
     */
    public static String stopReason(String finishReason) {
        return WireNames.stopReason(finishReason);
    }

    /**
     * Anthropic's error {@code type} for an HTTP status.
     *
     * @param status the status
     * @return the type
     */
    public static String errorType(int status) {
        return WireNames.errorType(status);
    }

    /**
     * A tool call's arguments as an Anthropic {@code input} object: the JSON object itself, {@code
     * {}} when empty, and anything that is not a JSON object wrapped as {@code {"_raw_arguments":
     * "<text>"}} so nothing the model produced is lost.
     */
    String toolInput(String argumentsJson) {
        return messages.toolInput(argumentsJson);
    }
}
