package dev.sluice.runtime.http;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.runtime.anthropic.AnthropicCodec;
import dev.sluice.runtime.protocol.ErrorEnvelope;
import dev.sluice.runtime.protocol.messages.AnthropicMessages;
import dev.sluice.runtime.anthropic.TokenEstimate;
import dev.sluice.runtime.entry.RequestRouter;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

/**
 * The Anthropic Messages API under {@code /v1} (SPEC API-3): {@code POST /messages}, streaming and
 * not, routed like chat completions to any provider through the canonical model (the
 * {@link AnthropicMessages} protocol), and {@code POST /messages/count_tokens}, answered with a local
 * estimate. Errors get the Anthropic envelope; every routed answer carries the API-5 headers.
 */
final class AnthropicMessagesService implements HttpService {


    private final Json json;
    private final Authenticator auth;
    private final AnthropicCodec codec;
    private final ProtocolHandler<AnthropicMessages.Request> messages;

    AnthropicMessagesService(Json json, Authenticator auth, AnthropicCodec codec, RequestRouter router, ClientAffinity affinity) {
        this.json = json;
        this.auth = auth;
        this.codec = codec;
        this.messages = new ProtocolHandler<>(new AnthropicMessages(codec, json.mapper()), json, auth, router, affinity);
    }

    @Override
    public void routing(HttpRules rules) {
        rules.post("/messages", messages)
                .post("/messages/count_tokens", this::countTokens);
    }

    /** A local estimate (see {@link TokenEstimate}); the model is validated but not routed, no upstream is called. */
    private void countTokens(ServerRequest req, ServerResponse res) {
        ErrorMapper.envelope(req, ErrorEnvelope.ANTHROPIC);
        auth.client(req);
        ChatRequest request = codec.readCountTokensRequest(json.body(req));
        json.send(res, 200, json.object().put("input_tokens", TokenEstimate.inputTokens(request)));
    }
}
