package dev.sluice.runtime.http;

import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.telemetry.RequestRecord;
import dev.sluice.runtime.telemetry.Telemetry;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * Opens a {@link RequestRecord} for every request and hands it to {@link Telemetry} once the request
 * is answered: here when a handler returned normally (the whole answer, a stream included, is
 * written by then), or by the {@link ErrorMapper} when the handler threw.
 */
final class RequestTelemetry {

    private static final String CONTEXT_KEY = "sluice.requestRecord";
    private static final String TELEMETRY_KEY = "sluice.telemetry";

    private RequestTelemetry() {
    }

    /** Registers the filter; after {@link RequestIds}, whose id it records. */
    static void register(HttpRouting.Builder routing, Telemetry telemetry) {
        routing.addFilter((chain, req, res) -> {
            RequestRecord record = telemetry.begin(RequestIds.of(req), req.prologue().method().text(), req.prologue().uriPath().path());
            req.context().register(CONTEXT_KEY, record);
            req.context().register(TELEMETRY_KEY, telemetry);
            chain.proceed();
            // a handler that threw is finished by the error mapper, with the status it sends
            if (res.isSent()) {
                telemetry.finish(record, res.status().code());
            }
        });
    }

    /** @return the request's record (a detached one outside the filter) */
    static RequestRecord of(ServerRequest req) {
        return req.context().get(CONTEXT_KEY, RequestRecord.class).orElseGet(RequestRecord::detached);
    }

    /**
     * Records what routing produced; call it right after routing, before rendering. The record was
     * handed to routing as the request's attempt tally, so its attempts are counted already.
     *
     * @param r the request's record ({@link #of})
     * @param requestedModel the model the client named
     * @param outcome the outcome
     */
    static void routed(RequestRecord r, String requestedModel, Outcome outcome) {
        r.routed(requestedModel, outcome, System.nanoTime());
    }

    /** The error mapper answered: the request is finished with that status. */
    static void answered(ServerRequest req, ServerResponse res, int status, String code) {
        RequestRecord r = req.context().get(CONTEXT_KEY, RequestRecord.class).orElse(null);
        Telemetry t = req.context().get(TELEMETRY_KEY, Telemetry.class).orElse(null);
        if (r != null && t != null) {
            if (code != null) {
                r.errorCode(code);
            }
            t.finish(r, status);
        }
    }
}
