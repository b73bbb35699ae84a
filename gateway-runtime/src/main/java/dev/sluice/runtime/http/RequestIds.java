package dev.sluice.runtime.http;

import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderName;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/** Gives every request an id, sent back as {@code X-Request-Id} on every answer (SPEC API-5). */
final class RequestIds {

    static final HeaderName X_REQUEST_ID = HeaderNames.create("X-Request-Id");
    private static final String CONTEXT_KEY = "sluice.requestId";

    private RequestIds() {
    }

    static void register(HttpRouting.Builder routing) {
        routing.addFilter((chain, req, res) -> {
            String id = "req_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
            req.context().register(CONTEXT_KEY, id);
            res.header(X_REQUEST_ID, id);
            chain.proceed();
        });
    }

    static String of(ServerRequest req) {
        return req.context().get(CONTEXT_KEY, String.class).orElse("req_unknown");
    }
}
