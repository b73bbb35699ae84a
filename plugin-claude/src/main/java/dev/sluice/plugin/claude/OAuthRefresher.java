package dev.sluice.plugin.claude;

import dev.sluice.toolkit.json.Json;
import dev.sluice.toolkit.json.JsonException;

import dev.sluice.api.CredentialUpdates;
import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.api.upstream.UpstreamRequest;
import dev.sluice.api.upstream.UpstreamResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Renews the access token of {@code oauth} connections through the OAuth refresh-token grant
 * ({@code POST tokenUrl} with {@code {"grant_type":"refresh_token","refresh_token","client_id"}}),
 * before a call when the token is (about to be) expired and after an upstream {@code 401}.
 *
 * <p>Renewed tokens are persisted through {@link CredentialUpdates} when the host offers it, and
 * kept in memory per connection either way: a call whose target still carries tokens this
 * refresher already replaced (read before the renewal was stored, or on a host that cannot store
 * them) is sent with the renewed tokens instead of refreshing again with a refresh token the
 * authorization server may already have rotated away.
 *
 * <p>Thread-safe without static state: one {@link Slot} per connection, in a map held by this
 * instance (one per executor). A refresh runs under the slot's lock; calls that needed the same
 * refresh wait for it and reuse its result, success or failure, instead of sending a second
 * token request. No token ever appears in a message or log line.
 */
final class OAuthRefresher {

    /** Default token endpoint (Claude's OAuth server). */
    static final String DEFAULT_TOKEN_URL = "https://console.anthropic.com/v1/oauth/token";
    /** Default client id: Claude Code's public OAuth client, which issues subscription tokens. */
    static final String DEFAULT_CLIENT_ID = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
    /** Default margin before {@code expiresAt} at which a token counts as expired, in ms. */
    static final long DEFAULT_SKEW_MS = 60_000L;
    /** Token endpoint answers are read up to this size. */
    static final int MAX_TOKEN_BODY = 64 * 1024;
    /** How many replaced token sets per connection are remembered as stale. */
    static final int SUPERSEDED_KEPT = 16;
    /** The longest piece of the token endpoint's error description quoted in a failure reason. */
    private static final int MAX_DESCRIPTION = 200;

    private final UpstreamHttp http;
    private final InstantSource clock;
    private final URI tokenUrl;
    private final String clientId;
    private final long skewMs;
    private final CredentialUpdates updates;
    private final System.Logger logger;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    /**
     * Creates the refresher.
     *
     * @param http the host's HTTP client
     * @param clock the host's clock
     * @param tokenUrl the token endpoint
     * @param clientId the OAuth client id
     * @param skewMs margin before expiry, in ms (≥ 0)
     * @param updates where renewed tokens are persisted, or null when the host cannot store them
     * @param logger the plugin's logger
     */
    OAuthRefresher(UpstreamHttp http, InstantSource clock, URI tokenUrl, String clientId, long skewMs,
            CredentialUpdates updates, System.Logger logger) {
        this.http = http;
        this.clock = clock;
        this.tokenUrl = tokenUrl;
        this.clientId = clientId;
        this.skewMs = skewMs;
        this.updates = updates;
        this.logger = logger;
    }

    /**
     * The tokens a call authenticates with. {@link #toString()} never shows them.
     *
     * @param accessToken the access token (the bearer token), or null
     * @param refreshToken the refresh token, or null
     * @param expiresAt the access token's expiry in epoch ms, or null when unknown
     */
    record Tokens(String accessToken, String refreshToken, Long expiresAt) {

        /** The tokens of a target: its bearer token (access token, else the key field), refresh token and expiry. */
        static Tokens of(UpstreamTarget target) {
            Credentials c = target.credentials();
            return new Tokens(c.bearerToken(), c.refreshToken(), c.expiresAt());
        }

        /** What identifies this token set: the access token, else the refresh token. */
        String identity() {
            return nonEmpty(accessToken) ? "a:" + accessToken : "r:" + refreshToken;
        }

        /** The target with these tokens in place of its own (the API key is kept). */
        UpstreamTarget applyTo(UpstreamTarget target) {
            Credentials c = target.credentials();
            return new UpstreamTarget(target.connectionId(), target.provider(), target.providerClass(), target.baseUrl(),
                    new Credentials(c.apiKey(), accessToken, refreshToken, expiresAt), target.providerSpecificData());
        }

        @Override
        public String toString() {
            return "Tokens[accessToken=" + (accessToken == null ? "none" : "***") + ", refreshToken="
                    + (refreshToken == null ? "none" : "***") + ", expiresAt=" + expiresAt + "]";
        }
    }

    /** What a refresh decision produced. */
    sealed interface Result {
    }

    /**
     * Tokens to send.
     *
     * @param tokens the tokens
     * @param renewed whether this call renewed them (or waited for a concurrent renewal): the call
     *     then spent its one refresh
     */
    record Usable(Tokens tokens, boolean renewed) implements Result {
    }

    /**
     * The refresh failed.
     *
     * @param reason why, without any token
     */
    record Failed(String reason) implements Result {
    }

    /** One connection's renewal state. */
    private static final class Slot {
        final ReentrantLock lock = new ReentrantLock();
        /** Replaced only under {@link #lock}; read without it. */
        volatile State state = State.EMPTY;
    }

    /**
     * An immutable snapshot of a connection's renewal state.
     *
     * @param latest the tokens of the last successful renewal, or null
     * @param superseded identities of token sets that renewals replaced (oldest first, bounded)
     * @param generation counts finished refresh attempts
     * @param failure the last attempt's failure, or null when it succeeded
     */
    private record State(Tokens latest, Set<String> superseded, long generation, Failure failure) {
        static final State EMPTY = new State(null, Set.of(), 0, null);
    }

    /**
     * A failed attempt.
     *
     * @param identity identity of the token set it tried to replace
     * @param reason why it failed
     */
    private record Failure(String identity, String reason) {
    }

    /**
     * Whether this refresher handles the target: an {@code oauth} connection with a refresh token.
     *
     * @param target the connection
     * @return true when its tokens can be refreshed
     */
    static boolean applies(UpstreamTarget target) {
        return target.providerClass() == ProviderClass.OAUTH && nonEmpty(target.credentials().refreshToken());
    }

    /**
     * The tokens to send a call with: the target's own, the ones a renewal already replaced them
     * with, or freshly renewed ones when those are expired (within the skew) or missing.
     *
     * @param target a connection this refresher {@link #applies(UpstreamTarget) applies} to
     * @param timeout bound on the token request
     * @return the tokens, or the refresh failure
     */
    Result beforeSend(UpstreamTarget target, Duration timeout) {
        Slot slot = slots.get(target.connectionId());
        Tokens current = effective(slot == null ? State.EMPTY : slot.state, target);
        if (!needsRenewal(current)) {
            return new Usable(current, false);
        }
        return renew(target, timeout, this::needsRenewal);
    }

    /**
     * The tokens to retry a call with after the upstream refused {@code sent} with a {@code 401}:
     * those of a renewal that happened meanwhile, else freshly renewed ones.
     *
     * @param target a connection this refresher {@link #applies(UpstreamTarget) applies} to
     * @param sent the tokens the refused request carried
     * @param timeout bound on the token request
     * @return the tokens, or the refresh failure
     */
    Result afterUnauthorized(UpstreamTarget target, Tokens sent, Duration timeout) {
        String refused = sent.identity();
        return renew(target, timeout, t -> t.identity().equals(refused));
    }

    private boolean needsRenewal(Tokens t) {
        if (!nonEmpty(t.accessToken())) {
            return true;
        }
        Long expiresAt = t.expiresAt();
        return expiresAt != null && expiresAt - skewMs <= clock.millis();
    }

    /** The target's tokens, or the renewed ones when a renewal already replaced the target's. */
    private static Tokens effective(State state, UpstreamTarget target) {
        Tokens own = Tokens.of(target);
        if (state.latest() != null && state.superseded().contains(own.identity())) {
            return state.latest();
        }
        return own;
    }

    private Result renew(UpstreamTarget target, Duration timeout, Predicate<Tokens> stillNeeded) {
        Slot slot = slots.computeIfAbsent(target.connectionId(), id -> new Slot());
        long seenGeneration = slot.state.generation();
        slot.lock.lock();
        try {
            State state = slot.state;
            Tokens current = effective(state, target);
            if (!stillNeeded.test(current)) {
                // a concurrent call renewed the tokens while this one waited: reuse them
                return new Usable(current, true);
            }
            Failure failure = state.failure();
            if (failure != null && state.generation() > seenGeneration && failure.identity().equals(current.identity())) {
                // a concurrent call's refresh of the same tokens failed while this one waited
                return new Failed(failure.reason());
            }
            if (!nonEmpty(current.refreshToken())) {
                return new Failed("no refresh token");
            }
            Result answer = requestTokens(target.httpOr(http), current.refreshToken(), timeout);
            if (answer instanceof Failed(String reason)) {
                slot.state = new State(state.latest(), state.superseded(), state.generation() + 1,
                        new Failure(current.identity(), reason));
                logger.log(Level.WARNING, "connection " + target.connectionId() + ": OAuth token refresh failed: " + reason);
                return answer;
            }
            Tokens issued = ((Usable) answer).tokens();
            Tokens renewed = new Tokens(issued.accessToken(),
                    issued.refreshToken() != null ? issued.refreshToken() : current.refreshToken(), issued.expiresAt());
            Set<String> superseded = new LinkedHashSet<>(state.superseded());
            superseded.remove(current.identity());
            superseded.add(current.identity());
            superseded.remove(renewed.identity());
            while (superseded.size() > SUPERSEDED_KEPT) {
                superseded.remove(superseded.iterator().next());
            }
            slot.state = new State(renewed, Set.copyOf(superseded), state.generation() + 1, null);
            logger.log(Level.INFO, "connection " + target.connectionId() + ": OAuth access token renewed");
            persist(target.connectionId(), issued);
            return new Usable(renewed, true);
        } finally {
            slot.lock.unlock();
        }
    }

    /**
     * Sends the refresh-token grant.
     *
     * @param client the client of the attempt's connection (its egress route)
     *
     * @return the issued tokens (refresh token null when none was issued), or the failure
     */
    private Result requestTokens(UpstreamHttp client, String refreshToken, Duration timeout) {
        Map<String, Object> grant = new LinkedHashMap<>();
        grant.put("grant_type", "refresh_token");
        grant.put("refresh_token", refreshToken);
        grant.put("client_id", clientId);
        Map<String, String> headers = Map.of(
                "content-type", "application/json",
                "accept", "application/json",
                "user-agent", AnthropicHeaders.USER_AGENT);
        UpstreamRequest request = new UpstreamRequest("POST", tokenUrl, headers,
                Json.write(grant).getBytes(StandardCharsets.UTF_8), timeout);
        int status;
        String body;
        UpstreamResponse response;
        try {
            // through the connection's egress route, like the attempt it renews the token for
            response = client.send(request);
        } catch (IOException e) {
            return new Failed(scrub("token endpoint unreachable: " + TransportError.of(e).describe(), refreshToken));
        }
        try (response) {
            status = response.head().status();
            body = response.bodyText(MAX_TOKEN_BODY);
        } catch (IOException e) {
            return new Failed(scrub("reading the token endpoint's answer failed: " + TransportError.of(e).describe(), refreshToken));
        }
        if (status < 200 || status > 299) {
            return new Failed("token endpoint answered HTTP " + status + oauthError(body, refreshToken));
        }
        Map<String, Object> root;
        try {
            root = Json.parseObject(body);
        } catch (JsonException e) {
            return new Failed("token endpoint answered HTTP " + status + " with a body that is not a JSON object");
        }
        String accessToken = Json.string(root, "access_token");
        if (!nonEmpty(accessToken)) {
            return new Failed("token endpoint answered HTTP " + status + " without an access_token");
        }
        String newRefreshToken = Json.string(root, "refresh_token");
        Long expiresIn = Json.number(root, "expires_in");
        Long expiresAt = expiresIn == null || expiresIn < 0 ? null : clock.millis() + expiresIn * 1000L;
        return new Usable(new Tokens(accessToken, nonEmpty(newRefreshToken) ? newRefreshToken : null, expiresAt), true);
    }

    /** Stores renewed tokens; a host that cannot store them still gets them used for this and later calls. */
    private void persist(String connectionId, Tokens issued) {
        if (updates == null) {
            logger.log(Level.WARNING, "connection " + connectionId
                    + ": OAuth tokens renewed, but the host cannot store them; they are kept in memory only");
            return;
        }
        try {
            if (!updates.oauthRenewed(connectionId, issued.accessToken(), issued.refreshToken(), issued.expiresAt())) {
                logger.log(Level.WARNING, "connection " + connectionId
                        + ": OAuth tokens renewed, but the host did not store them (connection gone?)");
            }
        } catch (RuntimeException e) {
            logger.log(Level.WARNING, "connection " + connectionId + ": storing renewed OAuth tokens failed ("
                    + e.getClass().getSimpleName() + "); they are kept in memory only");
        }
    }

    /** {@code " (error: description)"} from an OAuth error body, or empty; the refresh token masked. */
    private static String oauthError(String body, String refreshToken) {
        String error = null;
        String description = null;
        try {
            Map<String, Object> root = Json.parseObject(body);
            Object e = root.get("error");
            if (e instanceof String s) {
                error = s;
                description = Json.string(root, "error_description");
            } else if (e instanceof Map<?, ?> m) {
                // Anthropic's own envelope {"type":"error","error":{"type","message"}}
                error = Json.string(m, "type");
                description = Json.string(m, "message");
            }
        } catch (JsonException ignored) {
            // not JSON: the status alone says enough
        }
        if (error == null && description == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(" (");
        sb.append(error == null ? "error" : printable(scrub(error, refreshToken), 64));
        if (description != null && !description.isBlank()) {
            sb.append(": ").append(printable(scrub(description, refreshToken), MAX_DESCRIPTION));
        }
        return sb.append(')').toString();
    }

    /** The text without control characters, cut to a length. */
    private static String printable(String s, int max) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), max));
        for (int i = 0; i < s.length() && sb.length() < max; i++) {
            char c = s.charAt(i);
            sb.append(Character.isISOControl(c) ? ' ' : c);
        }
        return s.length() > max ? sb.append('…').toString() : sb.toString();
    }

    /** The text with every occurrence of the token masked (an endpoint might echo it). */
    private static String scrub(String text, String token) {
        return nonEmpty(token) ? text.replace(token, "***") : text;
    }

    private static boolean nonEmpty(String s) {
        return s != null && !s.isEmpty();
    }
}
