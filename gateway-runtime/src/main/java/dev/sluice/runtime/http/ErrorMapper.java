package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.openai.InvalidRequestException;
import io.helidon.http.HeaderNames;
import io.helidon.http.RequestException;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;

/**
 * The one place exceptions become HTTP answers (OpenAI error envelope). Unexpected exceptions
 * are logged with their stack trace and answered with a generic 500 that shows none of it.
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
        routing.error(Throwable.class, this::unexpected);
    }

    private void api(ServerRequest req, ServerResponse res, ApiException e) {
        if (res.isSent()) {
            return;
        }
        e.headers().forEach((k, v) -> res.header(HeaderNames.create(k), v));
        json.send(res, e.status(), envelope(e));
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
        return root;
    }

    private void unexpected(ServerRequest req, ServerResponse res, Throwable t) {
        if (t instanceof com.fasterxml.jackson.core.JacksonException) {
            // e.g. nesting or number-length constraints: bad input, not a server fault
            api(req, res, ApiException.badRequest(null, "Request body is not acceptable JSON: " + t.getClass().getSimpleName()));
            return;
        }
        LOG.log(System.Logger.Level.ERROR, "unexpected error on " + req.prologue().method().text() + " " + req.path().path(), t);
        if (!res.isSent()) {
            json.send(res, 500, envelope(new ApiException(500, "server_error", "internal_error",
                    "Internal error; the server log has the details.", null, Map.of())));
        }
    }
}
