package dev.sluice.api;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Adjustments to a built-in executor, for a provider that speaks a protocol the runtime already
 * implements but wants an extra upstream header or a small change to the request body
 * ({@link HostContext#builtinExecutor(String, ExecutorCustomizer)}). Immutable: each
 * {@code with...} returns a copy, so one customizer may be shared.
 *
 * <pre>{@code
 * ProviderExecutor executor = host.builtinExecutor(HostContext.OPENAI_COMPATIBLE, ExecutorCustomizer.none()
 *         .withHeader("X-Reseller-Client", "sluice")
 *         .withChatBody(json -> json.replace("\"stream\":", "\"service_tier\":\"flex\",\"stream\":"))).orElseThrow();
 * }</pre>
 */
public final class ExecutorCustomizer {

    /**
     * Headers the runtime sets itself: credentials come only from the connection, and framing
     * from the request.
     */
    private static final Set<String> RESERVED = Set.of("authorization", "content-type", "content-length", "host",
            "transfer-encoding", "connection", "accept");

    private static final ExecutorCustomizer NONE = new ExecutorCustomizer(Map.of(), null, List.of(), List.of());

    private final Map<String, String> headers;
    private final UnaryOperator<String> chatBody;
    private final List<RequestValues> computedHeaders;
    private final List<RequestValues> queryParameters;

    private ExecutorCustomizer(Map<String, String> headers, UnaryOperator<String> chatBody, List<RequestValues> computedHeaders,
            List<RequestValues> queryParameters) {
        this.headers = headers;
        this.chatBody = chatBody;
        this.computedHeaders = computedHeaders;
        this.queryParameters = queryParameters;
    }

    /**
     * No adjustment: the built-in executor as it is.
     *
     * @return the empty customizer
     */
    public static ExecutorCustomizer none() {
        return NONE;
    }

    /**
     * Also sends a fixed header on every upstream request (chat, embeddings and passthrough),
     * e.g. a client identification the provider requires. A later value for the same name (in
     * any case) replaces the earlier one. The runtime sends no {@code User-Agent} of its own: one
     * reaches the upstream only when set here.
     *
     * @param name header name, an RFC 9110 token; not {@code Authorization} (credentials come
     *     from the connection) nor a framing header ({@code Content-Type}, {@code Content-Length},
     *     {@code Accept}, {@code Host}, {@code Transfer-Encoding}, {@code Connection})
     * @param value header value, without CR or LF
     * @return a copy with the header
     * @throws IllegalArgumentException for an invalid or reserved name or an invalid value
     */
    public ExecutorCustomizer withHeader(String name, String value) {
        requireNonNull(name, "name is null");
        requireNonNull(value, "value is null");
        if (name.isEmpty() || !name.chars().allMatch(ExecutorCustomizer::isTokenChar)) {
            throw new IllegalArgumentException("header name '" + name + "' is not a valid HTTP header name");
        }
        if (RESERVED.contains(name.toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("header '" + name + "' is set by the runtime and cannot be customised"
                    + " (credentials come from the connection)");
        }
        if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("value of header '" + name + "' contains CR, LF or NUL");
        }
        Map<String, String> copy = new LinkedHashMap<>();
        headers.forEach((n, v) -> {
            if (!n.equalsIgnoreCase(name)) {
                copy.put(n, v);
            }
        });
        copy.put(name, value);
        return new ExecutorCustomizer(Map.copyOf(copy), chatBody, computedHeaders, queryParameters);
    }

    /**
     * Rewrites the JSON body of every chat request ({@code POST /chat/completions}) after the
     * runtime wrote it and before it is sent: the function gets the body as a JSON object text and
     * returns the text to send. It runs on request threads, so it must be thread-safe and fast; a
     * second call composes with the first (the earlier function runs first). For fields the
     * runtime already maps, prefer {@code ChatRequest.extra()} in an executor of your own.
     *
     * @param tweak the rewrite; must return a JSON object text
     * @return a copy with the rewrite
     */
    @Experimental("the body crosses as raw JSON text; a structured hook may replace it")
    public ExecutorCustomizer withChatBody(UnaryOperator<String> tweak) {
        requireNonNull(tweak, "tweak is null");
        UnaryOperator<String> before = chatBody;
        UnaryOperator<String> combined = before == null ? tweak : json -> tweak.apply(before.apply(json));
        return new ExecutorCustomizer(headers, combined, computedHeaders, queryParameters);
    }

    /**
     * Also sends headers computed for each upstream request from the connection and the request
     * (issue 27), e.g. a per-connection organisation id:
     * {@code withHeaders((target, call) -> Map.of("X-Zenith-Org", target.setting("org")))}. They
     * are added after the fixed headers and replace one of the same name (in any case); the same
     * names are reserved as for {@link #withHeader(String, String)}. Several calls add up, later
     * ones winning.
     *
     * @param values the headers of one request
     * @return a copy that computes them
     */
    public ExecutorCustomizer withHeaders(RequestValues values) {
        requireNonNull(values, "values is null");
        return new ExecutorCustomizer(headers, chatBody, append(computedHeaders, values), queryParameters);
    }

    /**
     * Also adds query parameters computed for each upstream request from the connection and the
     * request (issue 27), e.g. {@code withQueryParameters((target, call) -> Map.of("project",
     * target.setting("project")))}. Names and values are URL-encoded by the runtime.
     *
     * @param values the query parameters of one request
     * @return a copy that computes them
     */
    public ExecutorCustomizer withQueryParameters(RequestValues values) {
        requireNonNull(values, "values is null");
        return new ExecutorCustomizer(headers, chatBody, computedHeaders, append(queryParameters, values));
    }

    /**
     * The computed headers, in the order they were added.
     *
     * @return the functions; empty for none
     */
    public List<RequestValues> computedHeaders() {
        return computedHeaders;
    }

    /**
     * The computed query parameters, in the order they were added.
     *
     * @return the functions; empty for none
     */
    public List<RequestValues> queryParameters() {
        return queryParameters;
    }

    /**
     * Checks one header a {@link RequestValues} computed, as {@link #withHeader} checks a fixed one.
     * The runtime calls it for every computed header.
     *
     * @param name header name
     * @param value header value
     * @throws IllegalArgumentException for an invalid or reserved name or an invalid value
     */
    public static void checkHeader(String name, String value) {
        NONE.withHeader(name, value);
    }

    private static List<RequestValues> append(List<RequestValues> list, RequestValues values) {
        List<RequestValues> copy = new ArrayList<>(list);
        copy.add(values);
        return List.copyOf(copy);
    }

    /**
     * The extra headers, by name as given.
     *
     * @return the headers; empty for none
     */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * The chat-body rewrite.
     *
     * @return the rewrite, or the identity when none was given
     */
    @Experimental("the body crosses as raw JSON text; a structured hook may replace it")
    public UnaryOperator<String> chatBody() {
        return chatBody == null ? UnaryOperator.identity() : chatBody;
    }

    /**
     * Whether this customizer changes nothing.
     *
     * @return true for {@link #none()} and equivalents
     */
    public boolean isEmpty() {
        return headers.isEmpty() && chatBody == null && computedHeaders.isEmpty() && queryParameters.isEmpty();
    }

    private static boolean isTokenChar(int c) {
        return c > 0x20 && c < 0x7f && "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
    }

    @Override
    public String toString() {
        return "ExecutorCustomizer[headers=" + headers.keySet() + ", chatBody=" + (chatBody != null) + ", computedHeaders="
                + computedHeaders.size() + ", queryParameters=" + queryParameters.size() + "]";
    }
}
