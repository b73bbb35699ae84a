package dev.sluice.runtime.resilience.cooldown;

import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.FailedCandidate;
import dev.sluice.runtime.resilience.Mechanism;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionStore;
import dev.sluice.runtime.store.ProxyLogStore;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Egress-bucketed locks (SPEC §16.3, EB-1…EB-5): providers whose free tier is limited per egress
 * IP, not per account (the opencode family: plugins declare it through
 * {@link EgressBucketing}). A 429 classified {@code quota_exhausted} or {@code rate_limit_exceeded}
 * on one connection of the family cools it at connection scope (EB-3) and cools every other family
 * connection whose last known egress IP is in the same bucket, before rotation tries them.
 *
 * <p>Best effort (EB-2): the last known egress IP is the newest of what this process saw an
 * attempt use and the {@code proxy_logs} rows of the last 24 h; no known IP → only the failing
 * connection cools. Never terminal; a sibling with {@code disableCooling}, in a terminal state or
 * already cooling longer is left alone. Known limit (EB-5): the history is historic, so after a
 * proxy change a lock can miss a truly shared IP or cool a sibling that has moved.
 */
public final class EgressLocks implements Mechanism {

    /**
     * The bucket of connections that leave through the machine's default route (no local address,
     * no proxy) when no probe told their IP: they share whatever that IP is.
     */
    public static final String DIRECT_ROUTE = "direct-route";

    /** EB-2: how far back {@code proxy_logs} is read for the last known egress IP. */
    public static final long LOOKUP_WINDOW_MS = 86_400_000L;

    private final Map<String, EgressBucketing> hooksByProvider;
    private final ConnectionStore store;
    private final ProxyLogStore logs;
    private final ConnectionCooldowns cooldowns;
    private final InstantSource clock;
    private final ConcurrentHashMap<String, Seen> seen = new ConcurrentHashMap<>();

    /**
     * Creates the mechanism.
     *
     * @param hooksByProvider the family: each bucketed provider and the hook that buckets it
     * @param store the connections
     * @param logs the attempt log (egress IP history)
     * @param cooldowns connection cooldowns (the writer)
     * @param clock the clock
     */
    public EgressLocks(Map<String, EgressBucketing> hooksByProvider, ConnectionStore store, ProxyLogStore logs,
            ConnectionCooldowns cooldowns, InstantSource clock) {
        this.hooksByProvider = Map.copyOf(hooksByProvider);
        this.store = store;
        this.logs = logs;
        this.cooldowns = cooldowns;
        this.clock = clock;
    }

    /**
     * The family from the plugins' hooks, narrowed or replaced by {@code SLUICE_EGRESS_IP_LOCK_PROVIDERS}
     * (EB-1): unset → every provider a hook declares; {@code none}/{@code off}/{@code false}/{@code 0}
     * → none; a comma list → exactly those (each bucketed by its own hook when it has one, else by IP).
     *
     * @param hooks the plugins' hooks
     * @param override the environment value, or null
     * @return provider → hook
     */
    public static Map<String, EgressBucketing> family(List<EgressBucketing> hooks, String override) {
        Map<String, EgressBucketing> declared = new HashMap<>();
        for (EgressBucketing h : hooks) {
            for (String p : h.providers()) {
                declared.putIfAbsent(p, h);
            }
        }
        if (override == null || override.isBlank()) {
            return declared;
        }
        String o = override.strip().toLowerCase(java.util.Locale.ROOT);
        if (Set.of("none", "off", "false", "0").contains(o)) {
            return Map.of();
        }
        Map<String, EgressBucketing> chosen = new HashMap<>();
        for (String p : o.split(",")) {
            String id = p.strip();
            if (!id.isEmpty()) {
                chosen.put(id, declared.getOrDefault(id, BY_IP));
            }
        }
        return chosen;
    }

    /** Buckets by the IP itself (a provider named by the operator that no hook declares). */
    private static final EgressBucketing BY_IP = new EgressBucketing() {
        @Override
        public String name() {
            return "by-ip";
        }

        @Override
        public Set<String> providers() {
            return Set.of();
        }
    };

    /** @return the bucketed providers */
    public Set<String> providers() {
        return hooksByProvider.keySet();
    }

    /** EB-2: remembers the egress IP of a bucketed provider's attempt; default-route connections share one. */
    @Override
    public void onEgress(Candidate attempted, String egressIp, boolean direct) {
        if (hooksByProvider.containsKey(attempted.provider())) {
            recordAttempt(attempted.connection().id(), egressIp != null ? egressIp : direct ? DIRECT_ROUTE : null);
        }
    }

    /** EB-3: an egress-bucketed family's 429 is the IP's, so the connection (never a model) cools. */
    @Override
    public void take(FailedCandidate failed) {
        Candidate c = failed.candidate();
        if (failed.concernsTheConnection() && !c.connection().disableCooling() && applies(c.provider(), failed.verdict())) {
            failed.widenToConnection();
        }
    }

    /** EB-3: the failing connection cooled (the cooldown came first); its siblings of the same egress bucket cool with it. */
    @Override
    public void onFailure(FailedCandidate failed) {
        if (failed.widened()) {
            coolSiblings(failed.candidate().connection(), failed.verdict().reason());
        }
    }

    /**
     * Remembers the egress IP an attempt used.
     *
     * @param connectionId the connection
     * @param egressIp its egress IP, or null when unknown
     */
    public void recordAttempt(String connectionId, String egressIp) {
        if (egressIp != null) {
            seen.put(connectionId, new Seen(egressIp, clock.millis()));
        }
    }

    private record Seen(String ip, long at) {
    }

    /**
     * Whether a failure is an egress-bucketed one (EB-1, EB-3).
     *
     * @param provider the provider
     * @param v the verdict
     * @return true for a family provider's 429 quota or rate limit that is neither terminal nor permanent
     */
    public boolean applies(String provider, Verdict v) {
        return hooksByProvider.containsKey(provider) && v.status() == 429 && !v.permanent() && !v.creditsExhausted()
                && (v.reason() == FailureReason.QUOTA_EXHAUSTED || v.reason() == FailureReason.RATE_LIMIT_EXCEEDED);
    }

    /**
     * Cools the failing connection's siblings of the same egress bucket until the failing
     * connection's own cooldown ends.
     *
     * @param failing the connection that got the 429 (already cooled)
     * @param reason the failure reason, for the siblings' last error type
     * @return the ids of the siblings cooled now
     */
    public List<String> coolSiblings(Connection failing, FailureReason reason) {
        Connection now = store.find(failing.id()).orElse(failing);
        Long until = now.state().rateLimitedUntil();
        long t = clock.millis();
        if (until == null || until <= t) {
            return List.of();
        }
        Map<String, String> ips = lastKnownIps(t);
        String ip = ips.get(failing.id());
        if (ip == null) {
            return List.of();
        }
        String bucket = hooksByProvider.get(failing.provider()).bucketKey(failing.provider(), ip);
        List<String> cooled = new ArrayList<>();
        for (Connection c : store.list()) {
            EgressBucketing hook = hooksByProvider.get(c.provider());
            String theirs = ips.get(c.id());
            if (c.id().equals(failing.id()) || hook == null || theirs == null || !bucket.equals(hook.bucketKey(c.provider(), theirs))) {
                continue;
            }
            if (cooldowns.coolUntil(c.id(), until, reason, "shared egress IP " + ip + " exhausted (" + failing.provider() + ")")) {
                cooled.add(c.id());
            }
        }
        return cooled;
    }

    /**
     * EB-2, EB-4: what this process saw in the last 24 h, and for the family's other connections
     * the attempt log's newest row in that window (one indexed lookup per connection).
     */
    private Map<String, String> lastKnownIps(long now) {
        long since = now - LOOKUP_WINDOW_MS;
        Map<String, String> ips = new HashMap<>();
        seen.forEach((id, s) -> {
            if (s.at >= since) {
                ips.put(id, s.ip);
            }
        });
        List<String> unknown = new ArrayList<>();
        for (Connection c : store.list()) {
            if (hooksByProvider.containsKey(c.provider()) && !ips.containsKey(c.id())) {
                unknown.add(c.id());
            }
        }
        if (!unknown.isEmpty()) {
            logs.lastEgressIps(unknown, since).forEach(ips::putIfAbsent);
        }
        return ips;
    }
}
