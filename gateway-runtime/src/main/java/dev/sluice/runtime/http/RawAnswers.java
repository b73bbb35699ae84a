package dev.sluice.runtime.http;

import dev.sluice.runtime.telemetry.TokenCounts;
import dev.sluice.runtime.telemetry.RequestRecord;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.store.Secrets;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.util.Map;

/** Whole (non-streaming) answers passed through: relayed as the upstream wrote them. */
final class RawAnswers {

    private RawAnswers() {
    }

    /**
     * Reads the upstream's JSON answer (bounded) and sends it with status 200, closing the upstream
     * response. An answer that cannot be read is the gateway's 502, its text scrubbed of the
     * connection's secrets.
     *
     * @param res the client's response
     * @param raw the accepted answer
     * @param served the outcome it belongs to
     * @param record the request's record (the answer's usage)
     */
    static void relayJson(ServerResponse res, Reply.Raw raw, Outcome.Served served, RequestRecord record) {
        Route route = served.route();
        byte[] answer;
        try (UpstreamResponse upstream = raw.response()) {
            answer = upstream.wholeBody();
        } catch (IOException e) {
            throw new ApiException(502, "server_error", "network_error", "[" + route.provider().id() + "/" + route.upstreamModel()
                    + "] the upstream answer could not be read: " + Secrets.scrub(String.valueOf(e.getMessage()), served.connection()),
                    null, Map.of());
        }
        record.usage(TokenCounts.inAnswer(answer));
        Json.send(res, 200, answer);
    }

    /**
     * Relays a passed-through stream that no gate watches, byte for byte, closing the upstream
     * response; a read that fails mid-stream ends it with the protocol's error event.
     *
     * @param res the client's response
     * @param raw the accepted stream
     * @param served the outcome it belongs to
     * @param requestId the request id (the log)
     * @param errorEvent the protocol's in-band error for a text
     */
    static void relayStream(ServerResponse res, Reply.Raw raw, Outcome.Served served, String requestId,
            java.util.function.Function<String, byte[]> errorEvent) {
        Route route = served.route();
        try (UpstreamResponse upstream = raw.response()) {
            res.status(io.helidon.http.Status.OK_200);
            RoutedAnswers.streamHeaders(res);
            try (java.io.OutputStream out = res.outputStream()) {
                byte[] buf = new byte[8192];
                int n;
                while (true) {
                    try {
                        n = upstream.body().read(buf);
                    } catch (IOException e) {
                        String why = Secrets.scrub(String.valueOf(e.getMessage()), served.connection());
                        LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": passthrough stream of " + route.provider().id()
                                + " failed mid-stream: " + why);
                        out.write(errorEvent.apply("[" + route.provider().id() + "/" + route.upstreamModel() + "] upstream stream failed: " + why));
                        out.flush();
                        return;
                    }
                    if (n < 0) {
                        break;
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | java.io.UncheckedIOException e) {
                LOG.log(System.Logger.Level.DEBUG, "request " + requestId + ": client disconnected during passthrough stream");
            }
        }
    }

    private static final System.Logger LOG = System.getLogger(RawAnswers.class.getName());
}

