package dev.sluice.runtime.protocol;

import dev.sluice.runtime.routing.ClientRequest;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Reply;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.stream.SseEvent;
import dev.sluice.api.chat.StreamChunk;
import java.util.Map;

/**
 * One client protocol (issue 35 §2): how its requests are read into what the router routes, and how
 * each kind of answer is written on its wire. Everything else — authentication, the body limit,
 * session affinity, routing, telemetry, the API-5 headers, holding the admission until the answer is
 * written, the stream watchdogs — is done once, by the http layer's protocol handler. Adding a
 * client protocol is one package with an implementation of this and one registration of its route.
 *
 * @param <P> what one request reads into (with what its answer needs: ids, echoes)
 */
public interface ClientProtocol<P> {

    /** @return the shape of this protocol's error answers */
    ErrorEnvelope envelope();

    /**
     * Reads a request body; a body this protocol refuses is an {@code IllegalArgumentException}-based
     * refusal of the codec (a 400 naming the field).
     *
     * @param body the request body
     * @param requestId the request's id (some answers derive theirs from it)
     * @return the request
     */
    P read(byte[] body, String requestId);

    /**
     * @param request the request
     * @return the model the client named (affinity, telemetry)
     */
    String model(P request);

    /**
     * @param request the request
     * @param body the body as the client sent it (passed through where an upstream speaks this protocol)
     * @param forwardable the client headers the providers' rules may forward
     * @return what the router routes
     */
    ClientRequest routed(P request, byte[] body, Map<String, String> forwardable);

    /**
     * The refusal of an outcome that routed nowhere which this protocol names itself (a Responses
     * body only passthrough connections could serve), or null for the common answer.
     *
     * @param request the request
     * @param outcome how routing ended
     * @return the refusal to throw, or null
     */
    default RuntimeException refusal(P request, Outcome outcome) {
        return null;
    }

    /**
     * @param request the request
     * @param reply the answer about to be written
     * @return headers this protocol adds to it (none by default)
     */
    default Map<String, String> headers(P request, Reply reply) {
        return Map.of();
    }

    /**
     * @param request the request
     * @param answer a whole answer in the canonical model
     * @param route the route that served it
     * @return the answer's body on this protocol's wire
     */
    byte[] complete(P request, Reply.Complete answer, Route route);

    /**
     * @param request the request
     * @param route the route that serves it
     * @return how a canonical stream is written on this protocol's wire
     */
    StreamWire<StreamChunk> stream(P request, Route route);

    /**
     * @param request the request
     * @return how an upstream stream of this protocol, passed through, is relayed (watched)
     */
    default StreamWire<SseEvent> passthroughStream(P request) {
        throw new IllegalStateException(getClass().getSimpleName() + " has no passthrough stream");
    }

    /**
     * @param text what happened to a passed-through stream relayed unwatched, secrets scrubbed
     * @return the protocol's in-band error event
     */
    default byte[] passthroughStreamError(String text) {
        throw new IllegalStateException(getClass().getSimpleName() + " has no passthrough stream");
    }
}
