package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.anthropic.AnthropicCodec;
import dev.sluice.runtime.protocol.ErrorEnvelope;
import dev.sluice.runtime.openai.InvalidRequestException;
import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.http.RequestException;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;

/**
 * The one place exceptions become HTTP answers. The envelope follows the route (SPEC §2): the
 * Anthropic envelope {@code {"type":"error","error":{"type","message"}}} on {@code /v1/messages}
 * and below, the OpenAI envelope everywhere else, so handlers and shared code (authentication,
 * body limit, routing failures) throw the same {@link ApiException} whatever the client speaks.
 * Unexpected exceptions are logged with their stack trace and answered with a generic 500 that
 * shows none of it.
 */
final class ErrorMapper {

    private static final System.Logger LOG = System.getLogger(ErrorMapper.class.getName());

    private final Json json;

    ErrorMapper(Json json) {
        this.json = json;
    }

    void register(HttpRouting.Builder routing) {
        routing.error(ApiException.class, this::api);
        routing.error(InvalidRequestException.class, (req, res, e) -> api(req, res, ApiException.badRequest(e.param(), e.getMessage())));
        routing.error(RequestException.class, (req, res, e) -> api(req, res,
                new ApiException(e.status().code(), "invalid_request_error", "invalid_request",
                        e.safeMessage() ? e.getMessage() : "Invalid request.", null, Map.of())));
        // issue 36: a login refused (unknown provider or flow, bad state, too many flows, device endpoint failure)
        routing.error(dev.sluice.runtime.oauth.LoginException.class, (req, res, e) -> api(req, res,
                new ApiException(e.status(), e.status() >= 500 ? "server_error" : "invalid_request_error", e.code(), e.getMessage(),
                        e.param(), Map.of())));
        // SH-2: the provider's plugin was refused at start-up; the message names it and why
        routing.error(dev.sluice.runtime.plugin.RefusedProviderException.class, (req, res, e) -> api(req, res,
                new ApiException(503, "server_error", "provider_unavailable", e.getMessage(), null, Map.of())));
        // NF-6: a shared database that cannot be reached fails the write, says so, and changes nothing
        routing.error(dev.sluice.runtime.store.StoreException.class, (req, res, e) -> {
            if (!e.unavailable()) {
                unexpected(req, res, e);
                return;
            }
            LOG.log(System.Logger.Level.WARNING, "database unreachable on " + req.prologue().method().text() + " " + req.path().path()
                    + ": " + e.getMessage());
            api(req, res, new ApiException(503, "server_error", "store_unavailable",
                    "The database cannot be reached; nothing was changed. Try again when it is back.", null, Map.of("Retry-After", "5")));
        });
        routing.error(Throwable.class, this::unexpected);
    }

    private void api(ServerRequest req, ServerResponse res, ApiException e) {
        if (res.isSent()) {
            RequestTelemetry.answered(req, res, res.status().code(), e.code());
            return;
        }
        e.headers().forEach((k, v) -> SafeHeaders.set(res, HeaderNames.create(k), v));
        send(req, res, e);
    }

    /** The error in the route's envelope; an answer to {@code HEAD} has none (RFC 9110 §9.3.2). */
    private void send(ServerRequest req, ServerResponse res, ApiException e) {
        try {
            if (req.prologue().method() == Method.HEAD) {
                res.status(Status.create(e.status()));
                res.send();
                return;
            }
            json.send(res, e.status(), envelopeOf(req) == ErrorEnvelope.ANTHROPIC ? anthropicEnvelope(e) : envelope(e));
        } finally {
            RequestTelemetry.answered(req, res, e.status(), e.code());
            ClientConnections.answered(req, res);
        }
    }

    /**
     * Whether the request is on the Anthropic Messages API ({@code /v1/messages} and below), or is an
     * Anthropic SDK's {@code models.list} / {@code models.retrieve}: {@code /v1/models} with
     * {@code anthropic-version}, answered in Anthropic's shape (API-2), so its errors are too — the
     * SDK reads {@code error.type} of Anthropic's envelope.
     */
    /**
     * Sets the error envelope of a request: the client protocol handling it chose it (issue 35 §2).
     *
     * @param req the request
     * @param envelope its protocol's envelope
     */
    static void envelope(ServerRequest req, ErrorEnvelope envelope) {
        req.context().register(ENVELOPE, envelope);
    }

    /** The envelope the request's protocol chose; else the one its route implies (before a handler ran, or outside a protocol). */
    static ErrorEnvelope envelopeOf(ServerRequest req) {
        return req.context().get(ENVELOPE, ErrorEnvelope.class)
                .orElseGet(() -> anthropicRoute(req) ? ErrorEnvelope.ANTHROPIC : ErrorEnvelope.OPENAI);
    }

    private static final String ENVELOPE = "sluice.error-envelope";

    static boolean anthropicRoute(ServerRequest req) {
        // the prologue's path, not req.path(): inside a service, routing hands handlers a path relative to its prefix
        String path = req.prologue().uriPath().path();
        if (path.equals(ANTHROPIC_PREFIX) || path.startsWith(ANTHROPIC_PREFIX + "/")) {
            return true;
        }
        return (path.equals(MODELS_PREFIX) || path.startsWith(MODELS_PREFIX + "/")) && req.headers().contains(ANTHROPIC_VERSION);
    }

    private static final String ANTHROPIC_PREFIX = "/v1/messages";
    private static final String MODELS_PREFIX = "/v1/models";
    private static final io.helidon.http.HeaderName ANTHROPIC_VERSION = HeaderNames.create("anthropic-version");

    /** The Anthropic envelope: its {@code error.type} follows the status; OpenAI's code and param have no slot. */
    ObjectNode anthropicEnvelope(ApiException e) {
        ObjectNode root = json.object().put("type", "error");
        ObjectNode err = root.putObject("error").put("type", AnthropicCodec.errorType(e.status())).put("message", e.getMessage());
        details(root, err, e);
        return root;
    }

    ObjectNode envelope(ApiException e) {
        ObjectNode root = json.object();
        ObjectNode err = root.putObject("error");
        err.put("message", e.getMessage());
        err.put("type", e.type());
        err.put("code", e.code());
        if (e.param() == null) {
            err.putNull("param");
        } else {
            err.put("param", e.param());
        }
        details(root, err, e);
        return root;
    }

    /**
     * Extra fields (CO-4 {@code retry_after}/{@code reset_at}, CO-5 {@code diagnostics}) go in the error object, once
     * (issue 27: the block printed twice read as two failures); both SDKs expose the error object. An
     * error whose contract names fields at the top level ({@link ApiException#withDetailsAtTop()}) has them there too.
     */
    private void details(ObjectNode root, ObjectNode err, ApiException e) {
        e.details().forEach((k, v) -> {
            err.set(k, json.mapper().valueToTree(v));
            if (e.detailsAtTop()) {
                root.set(k, json.mapper().valueToTree(v));
            }
        });
    }

    private void unexpected(ServerRequest req, ServerResponse res, Throwable t) {
        LOG.log(System.Logger.Level.ERROR, "unexpected error on " + req.prologue().method().text() + " " + req.path().path(), t);
        if (!res.isSent()) {
            ApiException e = new ApiException(500, "server_error", "internal_error",
                    "Internal error; the server log has the details.", null, Map.of());
            send(req, res, e);
        } else {
            RequestTelemetry.answered(req, res, res.status().code(), "internal_error");
        }
    }
}
