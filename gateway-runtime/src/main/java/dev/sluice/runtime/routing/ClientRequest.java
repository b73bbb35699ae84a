package dev.sluice.runtime.routing;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.EmbeddingRequest;
import java.util.Map;

/** A parsed client request, as the pipeline's entry point takes it. */
public sealed interface ClientRequest {

    /**
     * The model the client named: {@code provider/model}, a bare model, or a combo.
     *
     * @return the model
     */
    String model();

    /**
     * A chat request in the canonical model ({@code POST /v1/chat/completions}): translated to each
     * target's protocol.
     *
     * @param request the request
     * @param clientHeaders allow-listed client headers for the executor
     */
    record Chat(ChatRequest request, Map<String, String> clientHeaders) implements ClientRequest {
        /** Validates and copies. */
        public Chat {
            requireNonNull(request, "request is null");
            clientHeaders = Map.copyOf(clientHeaders);
        }

        @Override
        public String model() {
            return request.model();
        }
    }

    /**
     * A request in a dialect some upstreams speak themselves ({@code POST /v1/messages}): passed
     * through to a target whose executor speaks it, translated through the canonical model to any
     * other.
     *
     * @param request the request in the canonical model
     * @param dialect the dialect, e.g. {@link dev.sluice.api.PassthroughCall#ANTHROPIC_MESSAGES}
     * @param body the client's body, for each route's model
     * @param clientHeaders allow-listed client headers for the executor
     * @param untranslatable why the body cannot be translated (the client's error), or null: when
     *     set, {@code request} holds the routing facts only and connections that would translate are
     *     passed over for this request (issue 32)
     */
    record Dialect(ChatRequest request, String dialect, PassthroughBody body, Map<String, String> clientHeaders,
            RuntimeException untranslatable) implements ClientRequest {
        /** Validates and copies. */
        public Dialect {
            requireNonNull(request, "request is null");
            requireNonNull(dialect, "dialect is null");
            requireNonNull(body, "body is null");
            clientHeaders = Map.copyOf(clientHeaders);
        }

        /**
         * A request that every connection may serve, translated or passed through.
         *
         * @param request the request in the canonical model
         * @param dialect the dialect
         * @param body the client's body, for each route's model
         * @param clientHeaders allow-listed client headers for the executor
         */
        public Dialect(ChatRequest request, String dialect, PassthroughBody body, Map<String, String> clientHeaders) {
            this(request, dialect, body, clientHeaders, null);
        }

        @Override
        public String model() {
            return request.model();
        }
    }

    /**
     * An embeddings request ({@code POST /v1/embeddings}).
     *
     * @param request the request
     */
    record Embeddings(EmbeddingRequest request) implements ClientRequest {
        /** Validates. */
        public Embeddings {
            requireNonNull(request, "request is null");
        }

        @Override
        public String model() {
            return request.model();
        }
    }
}
