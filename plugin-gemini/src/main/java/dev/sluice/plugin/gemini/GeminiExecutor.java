package dev.sluice.plugin.gemini;

import dev.sluice.api.ChatCall;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.chat.ChatResponse;
import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;
import dev.sluice.api.ChatOutcome;
import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Calls Gemini's {@code POST {base}/v1beta/models/{model}:generateContent} and
 * {@code :streamGenerateContent?alt=sse}. Upstream headers are built from scratch (SPEC SEC-5):
 * content type, accept, user agent and the connection's credential, as {@code x-goog-api-key}
 * (never in the URL, where it would end up in logs). Client headers are never forwarded.
 *
 * <p>An {@code oauth} connection (a Gemini CLI Google login, issue 36) goes to the Code Assist
 * backend instead ({@link CodeAssist}): the same request and answer translation, wrapped in its
 * envelope with the account's project ({@link CodeAssistProjects}), the access token as
 * {@code Authorization: Bearer}. Thread-safe.
 */
final class GeminiExecutor implements ProviderExecutor {

    /** Error bodies are read up to this size. */
    static final int MAX_ERROR_BODY = 64 * 1024;
    /** The API version path appended to a host-root base URL (SPEC DM-1b). */
    static final String API_VERSION = "v1beta";
    /** The user agent Sluice announces upstream. */
    static final String USER_AGENT = "Sluice/0.1";
    /**
     * Connection setting ({@code providerSpecificData}) that asks Gemini for thought summaries
     * ({@code thinkingConfig.includeThoughts}), which arrive as {@code reasoning_content}.
     */
    static final String INCLUDE_THOUGHTS = "includeThoughts";

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final Ids ids;
    private final System.Logger logger;
    private final String codeAssistBase;
    private final CodeAssistProjects projects;

    /**
     * Creates the executor.
     *
     * @param http the runtime's upstream client
     * @param clock the clock (answer timestamps)
     * @param ids id source
     * @param logger the plugin's logger
     */
    GeminiExecutor(UpstreamHttp http, InstantSource clock, Ids ids, System.Logger logger) {
        this(http, clock, ids, logger, CodeAssist.DEFAULT_BASE_URL, new CodeAssistProjects(http, Optional.empty(), logger));
    }

    /**
     * Creates the executor with its Code Assist mode (issue 36).
     *
     * @param http the runtime's upstream client
     * @param clock the clock (answer timestamps)
     * @param ids id source
     * @param logger the plugin's logger
     * @param codeAssistBase the Code Assist endpoint for OAuth connections on the API-key host
     * @param projects the Code Assist projects of OAuth connections
     */
    GeminiExecutor(UpstreamHttp http, InstantSource clock, Ids ids, System.Logger logger, String codeAssistBase,
            CodeAssistProjects projects) {
        this.http = http;
        this.clock = clock;
        this.ids = ids;
        this.logger = logger;
        this.codeAssistBase = codeAssistBase;
        this.projects = projects;
    }

    @Override
    public ChatOutcome chat(ChatCall call) {
        boolean stream = call.request().stream();
        UpstreamTarget target = call.target();
        String refusal = unsafeModelId(call.request().model());
        if (refusal != null) {
            logger.log(System.Logger.Level.INFO, () -> "gemini " + call.requestId() + " refused before sending: " + refusal);
            return new ChatOutcome.Failed(UpstreamError.builder(new ResponseHead(400, Map.of()))
                    .body("")
                    .errorCode("invalid_model_id")
                    .errorType("INVALID_ARGUMENT")
                    .message(refusal)
                    .build());
        }
        GeminiRequestWriter.Translation translation =
                GeminiRequestWriter.write(call.request(), includeThoughts(target));
        // issue 36: an OAuth connection is a Gemini CLI login, served by the Code Assist backend
        boolean codeAssist = target.providerClass() == ProviderClass.OAUTH;
        URI uri;
        byte[] body;
        if (codeAssist) {
            String base = CodeAssist.baseUrl(target.baseUrl(), codeAssistBase);
            CodeAssistProjects.Lookup lookup = projects.project(target, base, headers(target.credentials(), false), call.timeout());
            if (lookup instanceof CodeAssistProjects.Lookup.Failed(UpstreamFailure failure)) {
                logger.log(System.Logger.Level.INFO, () -> "gemini " + call.requestId() + ": no Code Assist project for connection "
                        + target.connectionId());
                return new ChatOutcome.Failed(failure);
            }
            uri = CodeAssist.chatUri(base, stream);
            body = CodeAssist.envelope(call.request().model(), ((CodeAssistProjects.Lookup.Known) lookup).project(), call.requestId(),
                    translation.bytes());
        } else {
            uri = endpoint(target.baseUrl(), call.request().model(), stream);
            body = translation.bytes();
        }
        UpstreamRequest request = new UpstreamRequest("POST", uri, headers(target.credentials(), stream), body, call.timeout());
        UpstreamResponse response;
        try {
            response = call.target().httpOr(http).send(request);
        } catch (IOException e) {
            logger.log(System.Logger.Level.DEBUG, () -> "gemini " + call.requestId() + " " + uri + " failed: " + e);
            return new ChatOutcome.Failed(TransportError.of(e));
        }
        ResponseHead head = response.head();
        logger.log(System.Logger.Level.DEBUG, () -> "gemini " + call.requestId() + " " + uri + " -> " + head.status()
                + (translation.dropped().isEmpty() ? "" : " (dropped parameters " + translation.dropped() + ")"));
        if (head.status() < 200 || head.status() > 299) {
            return new ChatOutcome.Failed(readError(response));
        }
        long created = clock.instant().getEpochSecond();
        if (stream) {
            return new ChatOutcome.Streaming(
                    new GeminiSseStream(response, new StreamTranslator(call.request().model(), created, ids), codeAssist), head);
        }
        try (response) {
            String answer = readAnswer(response);
            return new ChatOutcome.Completed(codeAssist ? readCodeAssist(answer, call.request().model(), created)
                    : GeminiResponseReader.read(answer, call.request().model(), created, ids), head);
        } catch (IOException e) {
            return new ChatOutcome.Failed(TransportError.of(e));
        } catch (UnexpectedAnswerException e) {
            return new ChatOutcome.Failed(new TransportError(TransportErrorKind.PROTOCOL,
                    "upstream answered " + head.status() + " with a body that is not a Gemini GenerateContentResponse: "
                            + e.getMessage()));
        }
    }

    /**
     * Why a model id cannot name a Gemini model, or null when it can. The id becomes a path
     * segment followed by {@code :method}; encoding alone leaves {@code ..} and a decoded
     * {@code %2F} to whatever normalises paths on the way (proxies, the upstream's router), so an
     * id outside Gemini's own alphabet is never sent: a 400 to the client (request-scoped, FC-4).
     *
     * @param model the upstream model id, possibly with Google's {@code models/} prefix
     * @return the reason, naming the model, or null
     */
    static String unsafeModelId(String model) {
        String m = model.startsWith("models/") ? model.substring("models/".length()) : model;
        boolean safe = !m.isEmpty() && m.length() <= MAX_MODEL_ID && !m.contains("..")
                && m.chars().allMatch(c -> (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                        || c == '-' || c == '.' || c == '_');
        return safe ? null : "'model' " + quoted(model) + " is not a Gemini model id: Sluice sends only ids of letters, digits,"
                + " '.', '-' and '_' (no '/', ':' or '..', at most " + MAX_MODEL_ID + " characters) to Gemini.";
    }

    /** Longest Gemini model id sent upstream (Google's ids are far shorter). */
    static final int MAX_MODEL_ID = 128;

    /** The id as JSON-ish text, control characters escaped, long ids cut, so the message stays one readable line. */
    private static String quoted(String s) {
        StringBuilder b = new StringBuilder("'");
        s.codePoints().limit(80).forEach(c -> {
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.append(s.codePointCount(0, s.length()) > 80 ? "…'" : "'").toString();
    }

    /**
     * The endpoint for a model. The model becomes one path segment, percent-encoded (a client's
     * model name never adds path segments or the {@code :method} suffix); a leading
     * {@code models/} (Google's resource name) is removed. A base URL that already ends in
     * {@code /v1beta} or {@code /v1} keeps its version.
     *
     * @param baseUrl the connection's base URL
     * @param model the upstream model id
     * @param stream whether to stream
     * @return the URI
     */
    static URI endpoint(String baseUrl, String model, boolean stream) {
        String base = baseUrl;
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        if (!base.endsWith("/" + API_VERSION) && !base.endsWith("/v1")) {
            base = base + "/" + API_VERSION;
        }
        String m = model.startsWith("models/") ? model.substring("models/".length()) : model;
        String method = stream ? ":streamGenerateContent?alt=sse" : ":generateContent";
        return URI.create(base + "/models/" + encodeSegment(m) + method);
    }

    /** RFC 3986 percent-encoding of everything but unreserved characters. */
    static String encodeSegment(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~') {
                sb.append((char) c);
            } else {
                sb.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        String out = sb.toString();
        // "." and ".." are dot-segments even encoded this way; Gemini has no such model anyway
        return out.equals(".") || out.equals("..") ? out.replace(".", "%2E") : out;
    }

    /**
     * Upstream headers: the API key as {@code x-goog-api-key}; a connection with only an OAuth
     * access token sends it as {@code Authorization: Bearer} (Google accepts both).
     */
    static Map<String, String> headers(Credentials credentials, boolean stream) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", "application/json");
        h.put("Accept", stream ? "text/event-stream" : "application/json");
        h.put("User-Agent", USER_AGENT);
        if (credentials.apiKey() != null && !credentials.apiKey().isEmpty()) {
            h.put("x-goog-api-key", credentials.apiKey());
        } else if (credentials.accessToken() != null && !credentials.accessToken().isEmpty()) {
            h.put("Authorization", "Bearer " + credentials.accessToken());
        }
        return h;
    }

    private static boolean includeThoughts(UpstreamTarget target) {
        Object v = target.providerSpecificData().get(INCLUDE_THOUGHTS);
        return v instanceof Boolean b ? b : v instanceof String s && Boolean.parseBoolean(s.strip());
    }

    static UpstreamFailure readError(UpstreamResponse response) {
        ResponseHead head = response.head();
        int status = head.status();
        if (status < 400) {
            // redirects are not followed and 1xx/3xx are no answer: the gateway's own 502, not a 3xx to the client
            response.close();
            return new TransportError(TransportErrorKind.PROTOCOL, "upstream answered HTTP " + status
                    + head.first("location").map(l -> " (Location: " + l + ")").orElse("") + " instead of an answer");
        }
        try (response) {
            return GeminiErrorReader.read(head, response.bodyText(MAX_ERROR_BODY));
        } catch (IOException e) {
            return GeminiErrorReader.read(head, "");
        }
    }

    /** A Code Assist answer: its {@code response} member read as Gemini's own answer. */
    private ChatResponse readCodeAssist(String answer, String model, long created) {
        Map<String, Object> root;
        try {
            root = Json.parseObject(answer);
        } catch (JsonException e) {
            throw new UnexpectedAnswerException("the answer is not a JSON object (" + e.getMessage() + ")");
        }
        Map<String, Object> inner = root.containsKey("error") ? root : CodeAssist.unwrap(root);
        if (inner == null) {
            throw new UnexpectedAnswerException("the Code Assist answer has no 'response' member");
        }
        return GeminiResponseReader.read(inner, model, created, ids);
    }

    /** Reads the whole answer, to its end (so the connection is reused), within the host's memory bounds. */
    private static String readAnswer(UpstreamResponse response) throws IOException {
        return new String(response.wholeBody(), StandardCharsets.UTF_8);
    }
}
