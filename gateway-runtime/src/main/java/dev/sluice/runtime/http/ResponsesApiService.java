package dev.sluice.runtime.http;

import dev.sluice.runtime.protocol.responses.ResponsesApi;
import dev.sluice.runtime.entry.RequestRouter;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import java.time.InstantSource;

/**
 * The OpenAI Responses API under {@code /v1} (SPEC API-7, OF-1): {@code POST /responses}, routed like
 * chat completions — failover, combos, resilience, admission, stream watchdogs — by the
 * {@link ResponsesApi} protocol (passed through where the upstream serves it, translated otherwise).
 */
final class ResponsesApiService implements HttpService {

    private final ProtocolHandler<ResponsesApi.Request> responses;

    ResponsesApiService(Json json, Authenticator auth, RequestRouter router, InstantSource clock, ClientAffinity affinity) {
        this.responses = new ProtocolHandler<>(new ResponsesApi(json.mapper(), clock), json, auth, router, affinity);
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/responses", responses);
    }
}
