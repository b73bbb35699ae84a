package dev.sluice.runtime.anthropic;

import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.ContentPart;
import dev.sluice.api.chat.ToolCall;
import dev.sluice.api.chat.ToolDefinition;
import java.nio.charset.StandardCharsets;

/**
 * The input-token estimate of {@code POST /v1/messages/count_tokens}, computed locally: no
 * upstream is asked, because most providers have no such endpoint and the answer only has to be
 * good enough for a client's context bookkeeping.
 *
 * <p>Method: the UTF-8 bytes of every text the model would read (system prompt, message text,
 * thinking, tool results, tool-call names and inputs, tool names, descriptions and input schemas,
 * other blocks as their JSON) divided by {@value #BYTES_PER_TOKEN}, rounded up, plus {@value
 * #TOKENS_PER_IMAGE} per image (Anthropic's cost of an image near its 1.15-megapixel size limit;
 * images are not decoded). English prose and code average about four bytes per token with
 * current tokenizers; other scripts use more bytes per token, so they are overestimated, which
 * errs on the safe side for context limits.
 */
public final class TokenEstimate {

    /** Bytes of UTF-8 text per estimated token. */
    public static final int BYTES_PER_TOKEN = 4;
    /** Estimated tokens per image. */
    public static final int TOKENS_PER_IMAGE = 1600;

    private TokenEstimate() {
    }

    /**
     * Estimates the input tokens of a request.
     *
     * @param r the request
     * @return the estimate, at least 1
     */
    public static long inputTokens(ChatRequest r) {
        long bytes = 0;
        long images = 0;
        for (ChatMessage m : r.messages()) {
            for (ContentPart p : m.content()) {
                switch (p) {
                    case ContentPart.Text t -> bytes += utf8(t.text());
                    case ContentPart.Image i -> images++;
                    case ContentPart.Other o -> bytes += utf8(o.json());
                }
            }
            bytes += utf8(m.reasoningContent());
            for (ToolCall c : m.toolCalls()) {
                bytes += utf8(c.name()) + utf8(c.argumentsJson());
            }
        }
        for (ToolDefinition t : r.tools()) {
            bytes += utf8(t.name()) + utf8(t.description()) + utf8(t.parametersJson());
        }
        return Math.max(1, (bytes + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN + images * TOKENS_PER_IMAGE);
    }

    private static long utf8(String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }
}
