package dev.sluice.runtime.oauth;

import dev.sluice.api.oauth.OAuthAccount;
import dev.sluice.api.oauth.OAuthFlow;
import dev.sluice.api.oauth.OAuthLogin;
import dev.sluice.api.oauth.OAuthTokenAnswer;
import dev.sluice.runtime.oauth.LoginFlow.Status;
import dev.sluice.runtime.oauth.TokenEndpoint.Issued;
import dev.sluice.runtime.oauth.TokenEndpoint.Refused;
import dev.sluice.runtime.oauth.TokenEndpoint.Reply;
import dev.sluice.runtime.oauth.TokenEndpoint.Unreachable;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs subscription logins (issue 36) on the injected clock: PKCE S256 authorization code with a
 * single-use {@code state}, and device code polled when its status is read and a poll is due
 * (never before the server's {@code interval}, which {@code slow_down} lengthens), in the login's
 * {@link dev.sluice.api.oauth.DeviceProtocol} ({@link DeviceGrant}). No thread of its
 * own: the admin API's requests drive every step. Flows expire after {@link #FLOW_TTL} and are
 * forgotten {@link #FORGET_AFTER} after they end.
 */
public final class LoginFlows {

    /** How long a flow waits for the operator (the issue's default, 10 minutes). */
    public static final Duration FLOW_TTL = Duration.ofMinutes(10);
    /** How long an ended flow can still be read before it is forgotten. */
    public static final Duration FORGET_AFTER = Duration.ofMinutes(10);
    /** Flows held at once, ended ones included; a start beyond is refused (429). */
    public static final int MAX_FLOWS = 100;

    private static final System.Logger LOG = System.getLogger(LoginFlows.class.getName());

    private final Map<String, OAuthLogin> logins;
    private final TokenEndpoint endpoint;
    private final AccountConnections accounts;
    private final InstantSource clock;
    private final ConcurrentHashMap<String, LoginFlow> flows = new ConcurrentHashMap<>();
    /** state → flow id, for pending PKCE flows whose state has not been used yet. */
    private final ConcurrentHashMap<String, String> states = new ConcurrentHashMap<>();

    /**
     * Creates the flows.
     *
     * @param logins effective login descriptions by provider id
     * @param endpoint the authorization-server client
     * @param accounts where a login's account becomes a connection
     * @param clock the clock
     */
    public LoginFlows(Map<String, OAuthLogin> logins, TokenEndpoint endpoint, AccountConnections accounts, InstantSource clock) {
        this.logins = Map.copyOf(logins);
        this.endpoint = endpoint;
        this.accounts = accounts;
        this.clock = clock;
    }

    /** @return the providers that offer a login, sorted */
    public Set<String> providers() {
        return new TreeSet<>(logins.keySet());
    }

    /**
     * Issue 33: what the dashboard offers an "Add account" button for.
     *
     * @return each provider with a login (sorted) and the flows it offers, the default first
     */
    public java.util.SortedMap<String, java.util.List<OAuthFlow>> offered() {
        java.util.SortedMap<String, java.util.List<OAuthFlow>> out = new java.util.TreeMap<>();
        logins.forEach((provider, login) -> out.put(provider, java.util.List.copyOf(login.flows())));
        return out;
    }

    /**
     * Starts a login.
     *
     * @param provider the provider id
     * @param options the operator's choices
     * @return the new flow
     * @throws LoginException 404 for a provider without a login, 400 for a flow it does not
     *     offer, 429 when too many flows are held, 502 when the device endpoint refuses
     */
    public FlowView start(String provider, StartOptions options) {
        OAuthLogin login = logins.get(provider);
        if (login == null) {
            throw LoginException.notFound("unknown_login", "Provider '" + provider + "' has no OAuth login; providers with one: "
                    + (logins.isEmpty() ? "none" : String.join(", ", providers())) + ".");
        }
        OAuthFlow type = options.flow() != null ? options.flow() : login.flows().iterator().next();
        if (!login.flows().contains(type)) {
            throw LoginException.badRequest("flow", "Provider '" + provider + "' offers the flows " + login.flows().stream()
                    .map(OAuthFlow::wireName).toList() + ", not '" + type.wireName() + "'.");
        }
        long now = clock.millis();
        purge(now);
        if (flows.size() >= MAX_FLOWS) {
            throw new LoginException(429, "too_many_flows", null, "Too many login flows at once (" + MAX_FLOWS
                    + "); finish or wait for the others to expire.");
        }
        boolean pkce = type == OAuthFlow.PKCE || login.devicePkce();
        LoginFlow flow = new LoginFlow(Pkce.random(18), login, type, options, Pkce.random(32), pkce ? Pkce.verifier() : null,
                now + FLOW_TTL.toMillis());
        if (type == OAuthFlow.PKCE) {
            flow.authorizeUrl = LoginUrls.authorizeUrl(login, flow);
            states.put(flow.state, flow.id);
        } else {
            DeviceGrant.of(login, endpoint).request(flow, route(flow));
            flow.nextPollAt = now + flow.intervalMs;
        }
        flows.put(flow.id, flow);
        return flow.view();
    }

    /**
     * A flow's status; a pending device flow whose poll is due polls the token endpoint once.
     *
     * @param flowId the flow id
     * @return the flow
     * @throws LoginException 404 when there is no such flow (any more)
     */
    public FlowView status(String flowId) {
        LoginFlow flow = find(flowId);
        if (flow.type == OAuthFlow.DEVICE && flow.status() == Status.PENDING && clock.millis() >= flow.nextPollAt
                && flow.lock.tryLock()) {
            // a poll already under way answers the others with the status it has
            try {
                poll(flow);
            } finally {
                flow.lock.unlock();
            }
        }
        return flow.view();
    }

    /**
     * Completes a PKCE flow from the provider's redirect to the host's callback.
     *
     * @param state the redirect's {@code state}
     * @param code the redirect's {@code code}, or null
     * @param error the redirect's {@code error}, or null
     * @return the flow
     * @throws LoginException 400 when the state is unknown, expired or already used
     */
    public FlowView callback(String state, String code, String error) {
        purge(clock.millis());
        String id = state == null ? null : states.remove(state);
        LoginFlow flow = id == null ? null : flows.get(id);
        if (flow == null) {
            throw LoginException.badRequest("state", "This login's state is unknown, expired or already used; start the login again.");
        }
        return complete(flow, code, state, error);
    }

    /**
     * Completes a PKCE flow with what the operator pasted: the code (Claude's page shows
     * {@code code#state}), with or without the state, or the whole URL the browser was sent to.
     *
     * @param flowId the flow
     * @param code the code, or null when {@code callbackUrl} is given
     * @param state the state, or null
     * @param callbackUrl the redirect URL, or null
     * @return the flow
     */
    public FlowView submit(String flowId, String code, String state, String callbackUrl) {
        LoginFlow flow = find(flowId);
        String error = null;
        if (callbackUrl != null) {
            Map<String, String> query = LoginUrls.query(callbackUrl);
            code = query.get("code");
            state = query.get("state");
            error = query.get("error");
            if (code == null && error == null) {
                throw LoginException.badRequest("callbackUrl", "'callbackUrl' has no 'code' (or 'error') query parameter.");
            }
        } else if (code == null || code.isBlank()) {
            throw LoginException.badRequest("code", "'code' or 'callbackUrl' is required.");
        }
        if (code != null && code.indexOf('#') > 0) {
            String[] parts = code.strip().split("#", 2);
            code = parts[0];
            state = state != null ? state : parts[1];
        }
        if (flow.type != OAuthFlow.PKCE) {
            throw new LoginException(409, "wrong_flow", null, "Flow '" + flowId + "' is a device-code flow; it takes no code.");
        }
        if (state != null && !state.equals(flow.state)) {
            if (flow.status() != Status.PENDING) {
                throw new LoginException(409, "flow_ended", null, "Login flow '" + flowId + "' is already " + flow.status().wireName()
                        + "; start the login again.");
            }
            states.remove(flow.state);
            flow.lock.lock();
            try {
                if (flow.end(Status.FAILED, clock.millis(), null, "the state does not match this login (wrong or replayed); "
                        + "nothing was created; start the login again")) {
                    LOG.log(Level.WARNING, "OAuth login " + flowId + " of " + flow.login.provider() + " failed: state mismatch");
                }
            } finally {
                flow.lock.unlock();
            }
            return flow.view();
        }
        states.remove(flow.state);
        return complete(flow, code == null ? null : code.strip(), state, error);
    }

    private FlowView complete(LoginFlow flow, String code, String state, String error) {
        flow.lock.lock();
        try {
            long now = clock.millis();
            expireIfDue(flow, now);
            if (flow.status() != Status.PENDING) {
                throw new LoginException(409, "flow_ended", null, "Login flow '" + flow.id + "' is already " + flow.status().wireName()
                        + "; start the login again.");
            }
            if (error != null) {
                fail(flow, now, "the authorization server refused the login: " + printable(error));
                return flow.view();
            }
            if (code == null || code.isBlank()) {
                fail(flow, now, "no authorization code was given");
                return flow.view();
            }
            OAuthLogin login = flow.login;
            Map<String, String> grant = new LinkedHashMap<>();
            grant.put("grant_type", "authorization_code");
            grant.put("code", code);
            grant.put("redirect_uri", login.redirectUri());
            grant.put("client_id", login.clientId());
            grant.put("code_verifier", flow.verifier);
            if (login.clientSecret() != null) {
                grant.put("client_secret", login.clientSecret());
            }
            if (login.stateInTokenRequest()) {
                grant.put("state", flow.state);
            }
            finish(flow, endpoint.post(route(flow), login.tokenUrl(), login.tokenEncoding(), grant));
            return flow.view();
        } finally {
            flow.lock.unlock();
        }
    }

    /** The flow's token and device requests leave through the start's {@code proxyUrl}, as the connection's calls will. */
    private static dev.sluice.runtime.upstream.EgressRoute route(LoginFlow flow) {
        return dev.sluice.runtime.upstream.EgressRoute.of(null, flow.options.proxyUrl());
    }

    private void poll(LoginFlow flow) {
        long now = clock.millis();
        expireIfDue(flow, now);
        if (flow.status() != Status.PENDING) {
            return;
        }
        DeviceGrant.Poll poll = DeviceGrant.of(flow.login, endpoint).poll(flow, route(flow));
        long after = clock.millis();
        switch (poll) {
            case DeviceGrant.Pending p -> {
                flow.intervalMs += p.slowerByMs();
                flow.nextPollAt = after + flow.intervalMs;
            }
            case DeviceGrant.Retry r -> {
                // transient: the next read polls again after the interval
                LOG.log(Level.INFO, "OAuth login " + flow.id + " of " + flow.login.provider() + ": poll failed, will retry: " + r.reason());
                flow.nextPollAt = after + flow.intervalMs;
            }
            case DeviceGrant.Expired e -> end(flow, Status.EXPIRED, after, null, e.reason());
            case DeviceGrant.Failed f -> fail(flow, after, f.reason());
            case DeviceGrant.Tokens t -> finish(flow, t.reply());
        }
    }

    /** The token answer becomes the connection, or the flow fails with why. */
    private void finish(LoginFlow flow, Reply reply) {
        long now = clock.millis();
        switch (reply) {
            case Refused r -> fail(flow, now, r.reason());
            case Unreachable u -> fail(flow, now, u.reason());
            case Issued(Map<String, Object> fields) -> {
                OAuthAccount account;
                try {
                    account = flow.login.accountMapper().map(new OAuthTokenAnswer(fields, now));
                } catch (RuntimeException e) {
                    fail(flow, now, "the token answer was not usable: " + printable(String.valueOf(e.getMessage())));
                    return;
                }
                String connectionId = accounts.save(flow.login, account, flow.options).id();
                end(flow, Status.CONNECTED, now, connectionId, null);
                LOG.log(Level.INFO, "OAuth login " + flow.id + " of " + flow.login.provider() + " connected connection " + connectionId);
            }
        }
    }

    private void fail(LoginFlow flow, long now, String why) {
        end(flow, Status.FAILED, now, null, why);
        LOG.log(Level.WARNING, "OAuth login " + flow.id + " of " + flow.login.provider() + " failed: " + why);
    }

    private void end(LoginFlow flow, Status to, long now, String connectionId, String why) {
        if (flow.end(to, now, connectionId, why)) {
            states.remove(flow.state);
        }
    }

    private void expireIfDue(LoginFlow flow, long now) {
        if (flow.status() == Status.PENDING && now >= flow.expiresAt) {
            end(flow, Status.EXPIRED, now, null, "the login was not completed within " + FLOW_TTL.toMinutes() + " minutes");
        }
    }

    private LoginFlow find(String flowId) {
        long now = clock.millis();
        purge(now);
        LoginFlow flow = flowId == null ? null : flows.get(flowId);
        if (flow == null) {
            throw LoginException.notFound("unknown_flow", "Login flow '" + flowId + "' does not exist (flows are forgotten "
                    + (FLOW_TTL.plus(FORGET_AFTER)).toMinutes() + " minutes after they start at the latest).");
        }
        expireIfDue(flow, now);
        return flow;
    }

    /** Expires due flows and forgets those ended {@link #FORGET_AFTER} ago. */
    private void purge(long now) {
        for (LoginFlow flow : flows.values()) {
            expireIfDue(flow, now);
            if (flow.status() != Status.PENDING && now >= flow.endedAt() + FORGET_AFTER.toMillis()) {
                flows.remove(flow.id, flow);
                states.remove(flow.state);
            }
        }
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < 200; i++) {
            char c = s.charAt(i);
            sb.append(Character.isISOControl(c) ? ' ' : c);
        }
        return sb.toString();
    }
}
