package dev.sluice.runtime.http;

import dev.sluice.runtime.protocol.ClientProtocol;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.entry.RequestRouter;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.stream.Signal;
import dev.sluice.runtime.stream.SseEvent;
import dev.sluice.runtime.telemetry.RequestRecord;
import dev.sluice.runtime.telemetry.TokenCounts;
import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;

/**
 * The one handler of every client protocol (issue 35 §2): authenticate, read the body within its
 * limit, read the request the protocol's way, apply session affinity, route, record the request, hold
 * the admission until the answer is written, set the API-5 headers, and write the answer — whole or
 * streamed (watched), translated or passed through — on the protocol's wire. Errors take the
 * protocol's envelope ({@link ErrorMapper} reads it from the request's context).
 *
 * @param <P> what the protocol reads a request into
 */
final class ProtocolHandler<P> implements Handler {

    private final ClientProtocol<P> protocol;
    private final Json json;
    private final Authenticator auth;
    private final RequestRouter router;
    private final ClientAffinity affinity;

    ProtocolHandler(ClientProtocol<P> protocol, Json json, Authenticator auth, RequestRouter router, ClientAffinity affinity) {
        this.protocol = protocol;
        this.json = json;
        this.auth = auth;
        this.router = router;
        this.affinity = affinity;
    }

    @Override
    public void handle(ServerRequest req, ServerResponse res) {
        ErrorMapper.envelope(req, protocol.envelope());
        Caller caller = auth.client(req);
        byte[] body = json.body(req);
        String requestId = RequestIds.of(req);
        P request = protocol.read(body, requestId);
        String model = protocol.model(request);
        caller = affinity.of(req, res, caller, body, model);
        RequestRecord record = RequestTelemetry.of(req);
        // the record counts the request's attempts as routing makes them (issue 35 §4)
        Outcome outcome = router.route(protocol.routed(request, body, RoutedAnswers.forwardableHeaders(req)), caller, requestId, record);
        RequestTelemetry.routed(record, model, outcome);
        RuntimeException refusal = protocol.refusal(request, outcome);
        if (refusal != null) {
            throw refusal;
        }
        // the connection's permit (§12) and the combo's in-flight count are held until the answer is written
        try (Outcome.Served served = RoutedAnswers.served(outcome)) {
            Route route = served.route();
            RoutedAnswers.routedHeaders(res, served);
            for (Map.Entry<String, String> h : protocol.headers(request, served.reply()).entrySet()) {
                SafeHeaders.set(res, HeaderNames.create(h.getKey()), h.getValue());
            }
            switch (served.reply()) {
                case Reply.Complete c -> {
                    record.usage(TokenCounts.of(c.response().usage()));
                    Json.send(res, 200, protocol.complete(request, c, route));
                }
                case Reply.Stream s -> StreamResponse.send(res, record, served, caller, requestId, s.prefix(), s.rest(), Signal::of,
                        s.rules(), s.startedNanos(), protocol.stream(request, route));
                case Reply.RawStream raw -> StreamResponse.send(res, record, served, caller, requestId, raw.prefix(), raw.rest(),
                        SseEvent::signal, raw.rules(), raw.startedNanos(), protocol.passthroughStream(request));
                case Reply.Raw raw when raw.stream() -> RawAnswers.relayStream(res, raw, served, requestId, protocol::passthroughStreamError);
                case Reply.Raw raw -> RawAnswers.relayJson(res, raw, served, record);
                case Reply.Embeddings e -> throw new IllegalStateException("a " + protocol.getClass().getSimpleName() + " request served embeddings");
            }
        }
    }
}
