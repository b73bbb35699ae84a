package dev.sluice.plugin.gemini;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The Google Cloud project each Code Assist account's requests name (issue 36), found as Gemini
 * CLI's {@code setupUser} finds it ({@code packages/core/src/code_assist/setup.ts}):
 * {@code loadCodeAssist}; an account with a current tier is served in the project it names; an
 * account without one is onboarded ({@code onboardUser}) to its default tier, whose answer names
 * the project. Found once per connection (single-flight: concurrent first requests wait for the
 * one lookup), kept in memory and stored as the connection's {@code providerSpecificData.projectId}
 * through the host, so a restart does not ask again. A project the operator set is used as it is.
 *
 * <p>Gemini CLI polls an onboarding that is not done yet every 5 s; a gateway request does not
 * wait that long: it fails with a retryable 503 and the next request asks again.
 */
final class CodeAssistProjects {

    /** The {@code ClientMetadata} Gemini CLI sends ({@code setup.ts}'s {@code coreClientMetadata}). */
    static final Map<String, Object> CLIENT_METADATA = Map.of("ideType", "IDE_UNSPECIFIED", "platform", "PLATFORM_UNSPECIFIED",
            "pluginType", "GEMINI");
    /** {@code UserTierId.LEGACY}: the tier onboarded when none is the default. */
    static final String LEGACY_TIER = "legacy-tier";
    /** {@code UserTierId.FREE}: onboarded without a project (setup.ts: naming one fails). */
    static final String FREE_TIER = "free-tier";

    /** What a lookup gave: the project, or why there is none. */
    sealed interface Lookup {
        /** @param project the project id */
        record Known(String project) implements Lookup {
        }

        /** @param failure the failure the request ends with */
        record Failed(UpstreamFailure failure) implements Lookup {
        }
    }

    private final UpstreamHttp http;
    private final Optional<CredentialUpdates> updates;
    private final System.Logger logger;
    private final ConcurrentHashMap<String, String> known = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();

    CodeAssistProjects(UpstreamHttp http, Optional<CredentialUpdates> updates, System.Logger logger) {
        this.http = http;
        this.updates = updates;
        this.logger = logger;
    }

    /**
     * The project of a connection.
     *
     * @param target the connection
     * @param base its Code Assist endpoint
     * @param headers the request headers (JSON, the bearer token)
     * @param timeout the bound of each lookup call
     * @return the project, or the failure to answer with
     */
    Lookup project(UpstreamTarget target, String base, Map<String, String> headers, Duration timeout) {
        String set = target.setting(CodeAssist.PROJECT_SETTING);
        if (set != null && !set.isBlank()) {
            return new Lookup.Known(set.strip());
        }
        String cached = known.get(target.connectionId());
        if (cached != null) {
            return new Lookup.Known(cached);
        }
        ReentrantLock lock = locks.computeIfAbsent(target.connectionId(), id -> new ReentrantLock());
        lock.lock();
        try {
            cached = known.get(target.connectionId());
            if (cached != null) {
                return new Lookup.Known(cached);
            }
            Lookup found = discover(target, base, headers, timeout);
            if (found instanceof Lookup.Known(String project)) {
                known.put(target.connectionId(), project);
                boolean stored = updates.map(u -> u.providerSettingLearned(target.connectionId(), CodeAssist.PROJECT_SETTING, project))
                        .orElse(false);
                logger.log(System.Logger.Level.INFO, () -> "gemini connection " + target.connectionId() + ": Code Assist project "
                        + project + (stored ? " stored" : " (kept in memory only)"));
            }
            return found;
        } finally {
            lock.unlock();
        }
    }

    private Lookup discover(UpstreamTarget target, String base, Map<String, String> headers, Duration timeout) {
        UpstreamHttp client = target.httpOr(http);
        Map<String, Object> load = new LinkedHashMap<>();
        load.put("metadata", CLIENT_METADATA);
        Answer loaded = post(client, base, "loadCodeAssist", load, headers, timeout);
        if (loaded.failure != null) {
            return new Lookup.Failed(loaded.failure);
        }
        Map<String, Object> res = loaded.body;
        if (Json.object(res, "currentTier") != null) {
            String project = Json.string(res, "cloudaicompanionProject");
            return project != null && !project.isBlank() ? new Lookup.Known(project) : projectRequired(res);
        }
        String tier = LEGACY_TIER;
        for (Object t : Json.array(res, "allowedTiers")) {
            if (Json.isTrue(t, "isDefault") && Json.string(t, "id") != null) {
                tier = Json.string(t, "id");
                break;
            }
        }
        Map<String, Object> onboard = new LinkedHashMap<>();
        onboard.put("tierId", tier);
        onboard.put("metadata", CLIENT_METADATA);
        Answer onboarded = post(client, base, "onboardUser", onboard, headers, timeout);
        if (onboarded.failure != null) {
            return new Lookup.Failed(onboarded.failure);
        }
        Map<String, Object> lro = onboarded.body;
        if (!Json.isTrue(lro, "done")) {
            return new Lookup.Failed(UpstreamError.builder(new ResponseHead(503, Map.of()))
                    .body("")
                    .errorCode("code_assist_onboarding")
                    .errorType("UNAVAILABLE")
                    .message("Google is still setting up Gemini Code Assist for this account (tier " + tier
                            + "); retry in a few seconds.").build());
        }
        String project = Json.string(Json.object(Json.object(lro, "response"), "cloudaicompanionProject"), "id");
        return project != null && !project.isBlank() ? new Lookup.Known(project) : projectRequired(res);
    }

    /** setup.ts's {@code throwIneligibleOrProjectIdError}: the ineligible tiers' reasons, else the project is needed. */
    private static Lookup projectRequired(Map<String, Object> loadAnswer) {
        List<String> reasons = new ArrayList<>();
        for (Object t : Json.array(loadAnswer, "ineligibleTiers")) {
            String reason = Json.string(t, "reasonMessage");
            if (reason != null) {
                reasons.add(reason);
            }
        }
        String message = reasons.isEmpty()
                ? "This Google account needs a Google Cloud project for Gemini Code Assist: set the connection's"
                        + " providerSpecificData.projectId."
                : "Google does not offer Gemini Code Assist to this account: " + String.join(", ", reasons) + ".";
        return new Lookup.Failed(UpstreamError.builder(new ResponseHead(403, Map.of()))
                .body("")
                .errorCode("code_assist_project_required")
                .errorType("PERMISSION_DENIED")
                .message(message)
                .build());
    }

    /** A lookup call's parsed answer, or its failure. */
    private record Answer(Map<String, Object> body, UpstreamFailure failure) {
    }

    private Answer post(UpstreamHttp client, String base, String method, Map<String, Object> body, Map<String, String> headers,
            Duration timeout) {
        UpstreamRequest request = new UpstreamRequest("POST", CodeAssist.method(base, method), headers,
                Json.write(body).getBytes(StandardCharsets.UTF_8), timeout);
        UpstreamResponse response;
        try {
            response = client.send(request);
        } catch (IOException e) {
            return new Answer(null, TransportError.of(e));
        }
        int status = response.head().status();
        if (status < 200 || status > 299) {
            // read (and closed) as a chat answer's error: Google's error body, or a protocol error for a 1xx/3xx
            return new Answer(null, GeminiExecutor.readError(response));
        }
        try (response) {
            String text = new String(response.wholeBody(), StandardCharsets.UTF_8);
            try {
                return new Answer(Json.parseObject(text), null);
            } catch (JsonException e) {
                return new Answer(null, new TransportError(TransportErrorKind.PROTOCOL, "Code Assist " + method
                        + " answered " + status + " with a body that is not a JSON object"));
            }
        } catch (IOException e) {
            return new Answer(null, TransportError.of(e));
        }
    }
}
