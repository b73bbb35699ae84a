package dev.sluice.testkit;

import java.util.ArrayList;
import java.util.List;

/**
 * Hand-written OpenAI-shaped JSON for the mock upstream. No JSON library: the testkit depends on
 * the JDK only, and the benchmark hits these methods on every request, so they stay string-cheap.
 * Values read from a request body are kept in their escaped JSON form and written back verbatim,
 * which keeps them valid without an unescape/escape round trip.
 */
final class OpenAiJson {

    /** A fixed {@code created} timestamp (2026-01-01T00:00:00Z): deterministic, and no wall clock. */
    static final long CREATED = 1_767_225_600L;
    static final String DEFAULT_MODEL = "mock-model";
    static final String FALLBACK_CONTENT = "Hello from mock";
    private static final String USAGE = "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":5,\"total_tokens\":8}";

    private OpenAiJson() {
    }

    /** The escaped {@code "model"} string of a request body, else {@value #DEFAULT_MODEL}. */
    static String model(String body) {
        int key = body.indexOf("\"model\"");
        String value = key < 0 ? null : stringValueAfter(body, key + 7);
        return value == null ? DEFAULT_MODEL : value;
    }

    /** The escaped value of the last {@code "content":"..."} string in a body, or null. */
    static String lastContent(String body) {
        for (int key = body.lastIndexOf("\"content\""); key >= 0; key = body.lastIndexOf("\"content\"", key - 1)) {
            String value = stringValueAfter(body, key + 9);
            if (value != null) {
                return value;
            }
        }
        return null;
    }

    /** Parses {@code \s* : \s* "..."} at {@code i}; returns the raw (still escaped) string, or null. */
    private static String stringValueAfter(String s, int i) {
        i = skipSpace(s, i);
        if (i >= s.length() || s.charAt(i) != ':') {
            return null;
        }
        i = skipSpace(s, i + 1);
        if (i >= s.length() || s.charAt(i) != '"') {
            return null;
        }
        int start = ++i;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                return s.substring(start, i);
            }
        }
        return null;
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    /** A JSON string literal (with quotes) for arbitrary text. */
    static String quote(String text) {
        StringBuilder b = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** A chat.completion; both arguments are already-escaped JSON string contents. */
    static String completion(String model, String escapedContent) {
        return "{\"id\":\"chatcmpl-mock\",\"object\":\"chat.completion\",\"created\":" + CREATED
                + ",\"model\":\"" + model + "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\""
                + escapedContent + "\"},\"finish_reason\":\"stop\"}]," + USAGE + "}";
    }

    /** An embeddings list with one 3-dimensional vector. */
    static String embeddings(String model) {
        return "{\"object\":\"list\",\"data\":[{\"object\":\"embedding\",\"index\":0,\"embedding\":[0.1,0.2,0.3]}],"
                + "\"model\":\"" + model + "\",\"usage\":{\"prompt_tokens\":3,\"total_tokens\":3}}";
    }

    /** SSE payloads of a streamed chat completion: role chunk, one chunk per piece, stop chunk with usage, [DONE]. */
    static List<String> chatChunks(String model, List<String> pieces) {
        String head = chunkHead(model);
        List<String> chunks = new ArrayList<>(pieces.size() + 3);
        chunks.add(firstChunk(model, ""));
        for (String piece : pieces) {
            chunks.add(head + "{\"content\":" + quote(piece) + "},\"finish_reason\":null}]}");
        }
        chunks.add(head + "{},\"finish_reason\":\"stop\"}]," + USAGE + "}");
        chunks.add("[DONE]");
        return chunks;
    }

    /** The opening chunk of a stream: {@code delta.role = assistant} with the given (escaped) content. */
    static String firstChunk(String model, String escapedContent) {
        return chunkHead(model) + "{\"role\":\"assistant\",\"content\":\"" + escapedContent + "\"},\"finish_reason\":null}]}";
    }

    /** One chunk; {@code delta} is a JSON object and {@code finishReason} a JSON value ({@code null} or a quoted string). */
    static String chunk(String model, String delta, String finishReason) {
        return chunkHead(model) + delta + ",\"finish_reason\":" + finishReason + "}]}";
    }

    /** The closing chunk: an empty delta, this finish reason (a quoted JSON string) and usage. */
    static String finishChunk(String model, String quotedReason) {
        return chunkHead(model) + "{},\"finish_reason\":" + quotedReason + "}]," + USAGE + "}";
    }

    private static String chunkHead(String model) {
        return "{\"id\":\"chatcmpl-mock\",\"object\":\"chat.completion.chunk\",\"created\":" + CREATED
                + ",\"model\":\"" + model + "\",\"choices\":[{\"index\":0,\"delta\":";
    }
}
