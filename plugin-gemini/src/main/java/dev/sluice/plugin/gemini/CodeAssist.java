package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The wire of Gemini CLI's Code Assist backend (issue 36), from
 * {@code packages/core/src/code_assist/server.ts} and {@code converter.ts} of
 * google-gemini/gemini-cli: {@code POST {endpoint}/v1internal:generateContent} and
 * {@code :streamGenerateContent?alt=sse}, the body a Gemini {@code GenerateContentRequest} wrapped
 * as {@code {"model", "project", "user_prompt_id", "request": {...}}}, and every answer (each stream
 * event too) a {@code GenerateContentResponse} wrapped as {@code {"response": {...}, "traceId"}}.
 * The native writer's bytes are wrapped as they are, and the answer's {@code response} member goes
 * to the native reader and stream translator: nothing of the translation is copied.
 */
final class CodeAssist {

    /** Gemini CLI's {@code CODE_ASSIST_ENDPOINT}. */
    static final String DEFAULT_BASE_URL = "https://cloudcode-pa.googleapis.com";
    /** Gemini CLI's {@code CODE_ASSIST_API_VERSION}. */
    static final String API_VERSION = "v1internal";
    /**
     * Connection setting ({@code providerSpecificData}) holding the Google Cloud project the
     * account's requests bill to: set by the operator (Gemini CLI's {@code GOOGLE_CLOUD_PROJECT}),
     * else discovered with {@code loadCodeAssist} / {@code onboardUser} and stored there.
     */
    static final String PROJECT_SETTING = "projectId";

    private CodeAssist() {
    }

    /**
     * The Code Assist endpoint of a connection: its base URL, except the API-key host
     * ({@link GeminiPlugin#DEFAULT_BASE_URL}, which an OAuth token cannot use; a connection made by
     * {@code bin/sluice import} has it), which becomes {@code configured}. A trailing
     * {@code /v1internal} is accepted.
     *
     * @param connectionBase the connection's effective base URL
     * @param configured the plugin's {@code upstreamBaseUrl} setting, or {@link #DEFAULT_BASE_URL}
     * @return the endpoint, without a trailing slash or version
     */
    static String baseUrl(String connectionBase, String configured) {
        String base = strip(connectionBase);
        if (base.equalsIgnoreCase(GeminiPlugin.DEFAULT_BASE_URL)) {
            base = strip(configured);
        }
        return base.endsWith("/" + API_VERSION) ? base.substring(0, base.length() - API_VERSION.length() - 1) : base;
    }

    private static String strip(String url) {
        String u = url.strip();
        while (u.endsWith("/")) {
            u = u.substring(0, u.length() - 1);
        }
        return u;
    }

    /**
     * A Code Assist method's URL, as Gemini CLI's {@code getMethodUrl}.
     *
     * @param base the endpoint from {@link #baseUrl}
     * @param method e.g. {@code generateContent}, {@code loadCodeAssist}
     * @return the URL
     */
    static URI method(String base, String method) {
        return URI.create(base + "/" + API_VERSION + ":" + method);
    }

    /**
     * The chat endpoint.
     *
     * @param base the endpoint
     * @param stream whether to stream
     * @return {@code :streamGenerateContent?alt=sse} or {@code :generateContent}
     */
    static URI chatUri(String base, boolean stream) {
        return method(base, stream ? "streamGenerateContent?alt=sse" : "generateContent");
    }

    /**
     * Wraps a {@code GenerateContentRequest} as converter.ts's {@code toGenerateContentRequest}.
     *
     * @param model the model id (Google's {@code models/} prefix removed)
     * @param project the Cloud project
     * @param promptId the prompt id (the gateway's request id)
     * @param request the native writer's JSON bytes
     * @return the envelope's bytes
     */
    static byte[] envelope(String model, String project, String promptId, byte[] request) {
        Map<String, Object> head = new LinkedHashMap<>();
        head.put("model", model.startsWith("models/") ? model.substring("models/".length()) : model);
        head.put("project", project);
        head.put("user_prompt_id", promptId);
        String open = Json.write(head);
        // {"model":…,"user_prompt_id":…  +  ,"request":  +  the request  +  }: one copy of the request
        byte[] start = (open.substring(0, open.length() - 1) + ",\"request\":").getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[start.length + request.length + 1];
        System.arraycopy(start, 0, out, 0, start.length);
        System.arraycopy(request, 0, out, start.length, request.length);
        out[out.length - 1] = '}';
        return out;
    }

    /**
     * The {@code GenerateContentResponse} inside an answer, as converter.ts's
     * {@code fromGenerateContentResponse}: the {@code response} member, with the {@code traceId}
     * as its {@code responseId} when it has none.
     *
     * @param envelope the parsed answer or stream event
     * @return the inner response, or null when the envelope has none (an event that only reports credits)
     */
    static Map<String, Object> unwrap(Map<String, Object> envelope) {
        Map<String, Object> inner = Json.object(envelope, "response");
        if (inner == null) {
            return null;
        }
        String traceId = Json.string(envelope, "traceId");
        if (traceId != null && Json.string(inner, "responseId") == null) {
            Map<String, Object> copy = new LinkedHashMap<>(inner);
            copy.put("responseId", traceId);
            return copy;
        }
        return inner;
    }
}
