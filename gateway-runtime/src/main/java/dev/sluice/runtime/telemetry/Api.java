package dev.sluice.runtime.telemetry;

/**
 * The {@code api} label of a request path: a fixed set of names, so a client's path never becomes a
 * label value.
 */
final class Api {

    static final String CHAT_COMPLETIONS = "chat_completions";
    static final String MESSAGES = "messages";
    static final String COUNT_TOKENS = "count_tokens";
    static final String RESPONSES = "responses";
    static final String EMBEDDINGS = "embeddings";
    static final String MODELS = "models";
    static final String ADMIN = "admin";
    static final String HEALTH = "health";
    static final String METRICS = "metrics";
    static final String OPENAPI = "openapi";
    static final String UI = "ui";
    static final String OTHER = "other";
    /** Issue 34: an upstream call a combo executor made beside the client's (never a request path). */
    static final String COMBO_STEP = "combo_step";

    private Api() {
    }

    static String of(String path) {
        return switch (path) {
            case "/v1/chat/completions" -> CHAT_COMPLETIONS;
            case "/v1/messages" -> MESSAGES;
            case "/v1/messages/count_tokens" -> COUNT_TOKENS;
            case "/v1/responses" -> RESPONSES;
            case "/v1/embeddings" -> EMBEDDINGS;
            case "/metrics" -> METRICS;
            case "/openapi" -> OPENAPI;
            default -> path.equals("/v1/models") || path.startsWith("/v1/models/") ? MODELS
                    : path.startsWith("/api/") || path.equals("/api") ? ADMIN
                    : path.startsWith("/health") ? HEALTH
                    : path.equals("/ui") || path.startsWith("/ui/") ? UI
                    : OTHER;
        };
    }

    /** @return whether requests of the API are inference requests (counted in the usage table) */
    static boolean metered(String api) {
        return api.equals(CHAT_COMPLETIONS) || api.equals(MESSAGES) || api.equals(RESPONSES) || api.equals(EMBEDDINGS);
    }

    /** @return whether requests of the API get an access-log line (probes, scrapes and static assets would drown it) */
    static boolean logged(String api) {
        return !api.equals(HEALTH) && !api.equals(METRICS) && !api.equals(UI);
    }
}
