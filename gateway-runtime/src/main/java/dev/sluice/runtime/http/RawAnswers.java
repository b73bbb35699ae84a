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
}
