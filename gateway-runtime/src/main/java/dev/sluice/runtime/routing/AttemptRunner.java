package dev.sluice.runtime.routing;

import dev.sluice.api.Credentials;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.UpstreamTarget;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamHttp;
import dev.sluice.runtime.oauth.TokenRenewal;
import dev.sluice.runtime.resilience.gate.AdmissionPolicy;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.upstream.EgressRoute;
import dev.sluice.runtime.upstream.EgressRoutes;
import java.util.Map;
import java.util.function.Function;

/**
 * Runs one attempt under its lease: builds the target with the client of the connection's egress
 * route (passed to the executor explicitly, §16.3), bounds the executor call by the connection's
 * execution bound (RQ-2), and turns whatever the executor did — an answer, a failure, an exception
 * of its own — into an {@link Attempt}. The connection it sent with (its OAuth tokens renewed, when
 * they were) stays on the lease ({@link Lease#sent()}) for a renewal after a {@code 401}. An attempt
 * the bound stopped fails with the gateway's own timer (BO-7), whatever the interrupted executor
 * made of it.
 */
final class AttemptRunner {

    private final EgressRoutes egress;
    private final AttemptWatchdog watchdog;
    private final AdmissionPolicy policy;
    private final long startTimeoutMs;
    private final Function<String, Map<String, Object>> jsonObjectParser;
    private final TokenRenewal tokens;

    /**
     * Creates the runner.
     *
     * @param egress the outbound routes
     * @param watchdog bounds each attempt
     * @param policy what limits a request on a connection
     * @param startTimeoutMs the executors' own start timeout
     * @param jsonObjectParser parses a connection's providerSpecificData JSON into plain Java values
     * @param tokens gives a connection whose OAuth token is due its renewed tokens (issue 36)
     */
    AttemptRunner(EgressRoutes egress, AttemptWatchdog watchdog, AdmissionPolicy policy, long startTimeoutMs,
            Function<String, Map<String, Object>> jsonObjectParser, TokenRenewal tokens) {
        this.tokens = tokens;
        this.egress = egress;
        this.watchdog = watchdog;
        this.policy = policy;
        this.startTimeoutMs = startTimeoutMs;
        this.jsonObjectParser = jsonObjectParser;
    }

    /**
     * After the upstream refused the attempt with {@code 401}: the connection with another OAuth
     * token to run it once more with, or null (issue 36).
     *
     * @param attempt the attempt's result
     * @param lease its admission (which knows the connection as the attempt sent it)
     * @return the connection to retry with, or null
     */
    Connection renewedAfter(Attempt attempt, Lease lease) {
        boolean unauthorized = attempt instanceof Attempt.Failed f && f.failure() instanceof AttemptFailure.Upstream u
                && u.failure() instanceof dev.sluice.api.upstream.UpstreamError e && e.status() == 401;
        Connection sent = lease.sent();
        return unauthorized && sent.authType() == ProviderClass.OAUTH ? tokens.afterUnauthorized(sent) : null;
    }

    /**
     * The egress IP of a connection's outbound route (EB-2), or null when unknown.
     *
     * @param way the route
     * @return the IP, or null
     */
    String egressIp(EgressRoute way) {
        return egress.egressIp(way);
    }

    /**
     * Runs one attempt, bounded by the connection's execution bound (RQ-2) and cut short when its
     * client leaves; a streamed request must besides be ready (its first useful event read) within
     * {@code readinessMs} of the start, the wait for the upstream's headers included (issue 32). With
     * {@code renewed} it is sent once more with the tokens a renewal after a {@code 401} gave its
     * connection (issue 36); without, with the lease's connection, its OAuth token renewed first when
     * it is due.
     *
     * @param lease the attempt's admission (its watch runs while the executor does)
     * @param route the route being tried
     * @param call what to send
     * @param way the connection's egress route (§16.3), which the caller also logs the attempt by
     * @param client whether the request's client is still there
     * @param readinessMs the streamed request's readiness bound, 0 for a whole answer
     * @param renewed the connection with renewed tokens, or null
     * @return what happened
     */
    Attempt run(Lease lease, Route route, AttemptCall call, EgressRoute way, ClientLiveness client, long readinessMs,
            Connection renewed) {
        Connection c = lease.candidate().connection();
        Connection sent = renewed != null ? renewed : c;
        UpstreamHttp http = egress.route(way);
        long executionMs = policy.executionMaxWaitMs(c, startTimeoutMs);
        boolean readinessBound = readinessMs > 0 && readinessMs < executionMs;
        long boundMs = readinessBound ? readinessMs : executionMs;
        long t0 = System.nanoTime();
        lease.watch(watchdog, boundMs, client);
        Attempt attempt;
        try {
            if (renewed == null) {
                sent = tokens.beforeAttempt(c);
            }
            attempt = call.send(route, target(route, sent, http));
        } catch (RuntimeException | StackOverflowError | LinkageError e) {
            // an executor (or a plugin's) bug or an unreadable answer is this attempt's failure, not a 500
            attempt = Attempt.protocol(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        boolean overran = lease.attemptReturned();
        if (!overran && !readinessBound && attempt instanceof Attempt.Failed && timedOut(attempt)
                && (System.nanoTime() - t0) / 1_000_000 >= executionMs) {
            // the upstream read's own bound and the execution bound fell due together (both are checked every 100 ms,
            // in no fixed order): the attempt did run its whole execution bound, and RQ-2 names that
            overran = true;
        }
        if (overran && lease.attemptClientGone()) {
            // the client left: the upstream call was cut; nobody to answer, nothing held against the connection
            if (attempt instanceof Reply reply) {
                try {
                    Reply.closeUpstream(reply);
                } catch (RuntimeException e) {
                    // nothing more to do for a client that left
                }
            }
            attempt = new Attempt.Failed(new AttemptFailure.ClientGone());
        } else if (overran && attempt instanceof Attempt.Failed) {
            attempt = new Attempt.Failed(readinessBound ? new AttemptFailure.GatewayTimer(AttemptFailure.Timer.STREAM_READINESS, readinessMs)
                    : new AttemptFailure.GatewayTimer(AttemptFailure.Timer.EXECUTION_BOUND, boundMs));
        } else if (connectTimedOut(attempt) && egress.connectTimeoutMs() > 0) {
            // issue 32: the gateway's own bound on the connect (BO-7), not evidence against the provider
            attempt = new Attempt.Failed(new AttemptFailure.GatewayTimer(AttemptFailure.Timer.UPSTREAM_CONNECT, egress.connectTimeoutMs()));
        }
        lease.sendingWith(sent);
        return attempt;
    }

    /**
     * The connection as an executor sees it, with the client of its egress route; its tokens as
     * they are (for asking an executor what it serves, not for sending).
     */
    UpstreamTarget target(Route route, Connection c) {
        return target(route, c, egress.route(EgressRoute.of(c.localAddress(), c.proxyUrl())));
    }

    /**
     * Whether the attempt failed because its connect did not complete in time: both upstream
     * clients report it as a {@code SocketTimeoutException} whose message says "connect timed out"
     * (Helidon's socket connect, and {@code JdkTransportErrors} for the JDK client's).
     */
    static boolean connectTimedOut(Attempt attempt) {
        return attempt instanceof Attempt.Failed f && f.failure() instanceof AttemptFailure.Upstream u
                && u.failure() instanceof TransportError t && t.kind() == TransportErrorKind.TIMEOUT
                && t.message().toLowerCase(java.util.Locale.ROOT).contains("connect timed out");
    }

    /** Whether the attempt failed on a transport timeout (of the connect or of a read). */
    private static boolean timedOut(Attempt attempt) {
        return attempt instanceof Attempt.Failed f && f.failure() instanceof AttemptFailure.Upstream u
                && u.failure() instanceof TransportError t && t.kind() == TransportErrorKind.TIMEOUT;
    }

    private UpstreamTarget target(Route route, Connection c, UpstreamHttp http) {
        String base = c.baseUrl() != null ? ProviderCatalog.lowerCaseScheme(c.baseUrl()) : route.provider().descriptor().defaultBaseUrl();
        if (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        // the credential of the connection's class only (DM-2): an oauth connection never sends a stale API key
        boolean oauth = c.authType() == ProviderClass.OAUTH && c.oauth() != null;
        Credentials creds = new Credentials(oauth ? null : c.apiKey(), oauth ? c.oauth().accessToken() : null,
                oauth ? c.oauth().refreshToken() : null, oauth ? c.oauth().expiresAt() : null);
        Map<String, Object> psd = c.providerSpecificDataJson() == null ? Map.of() : jsonObjectParser.apply(c.providerSpecificDataJson());
        return new UpstreamTarget(c.id(), c.provider(), c.authType(), base, creds, psd, http);
    }
}
