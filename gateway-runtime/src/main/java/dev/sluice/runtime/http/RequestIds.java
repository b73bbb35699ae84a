package dev.sluice.runtime.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderName;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Gives every request an id, sent back as {@code X-Request-Id} on every answer (SPEC API-5); Anthropic
 * clients (a {@code /v1/messages} path, or an {@code anthropic-version} header) also get it as
 * {@code request-id}, the header Anthropic's API sends and its SDK reads ({@code err.requestID}).
 */
final class RequestIds {

    static final HeaderName X_REQUEST_ID = HeaderNames.create("X-Request-Id");
    static final HeaderName ANTHROPIC_REQUEST_ID = HeaderNames.create("request-id");
    private static final HeaderName ANTHROPIC_VERSION = HeaderNames.create("anthropic-version");
    private static final String CONTEXT_KEY = "sluice.requestId";

    private RequestIds() {
    }

    static void register(HttpRouting.Builder routing) {
        routing.addFilter((chain, req, res) -> {
            String id = "req_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
            req.context().register(CONTEXT_KEY, id);
            res.header(X_REQUEST_ID, id);
            if (req.path().rawPath().startsWith("/v1/messages") || req.headers().contains(ANTHROPIC_VERSION)) {
                res.header(ANTHROPIC_REQUEST_ID, id);
            }
            chain.proceed();
        });
    }

    static String of(ServerRequest req) {
        return req.context().get(CONTEXT_KEY, String.class).orElse("req_unknown");
    }
}
