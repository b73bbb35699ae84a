package dev.sluice.runtime.resilience.cooldown;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.JdbcProxyLogStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.ProxyLogRow;
import dev.sluice.runtime.telemetry.AttemptLog;
import dev.sluice.runtime.telemetry.RecentRequests;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Egress-bucketed locks (SPEC §16.3 EB-1…EB-4). */
class EgressLocksTest {

    private static final EgressBucketing OPENCODE = new EgressBucketing() {
        @Override
        public String name() {
            return "opencode-egress-ip";
        }

        @Override
        public Set<String> providers() {
            return Set.of("opencode-go", "opencode-cli");
        }
    };

    @TempDir
    Path dir;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    private Database db;
    private JdbcConnectionStore store;
    private JdbcProxyLogStore logs;
    private ConnectionCooldowns cooldowns;
    private EgressLocks locks;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
        logs = new JdbcProxyLogStore(db);
        cooldowns = ConnectionCooldowns.local(store, clock, () -> ResilienceSettings.DEFAULTS);
        locks = new EgressLocks(EgressLocks.family(List.of(OPENCODE), null), store, logs, cooldowns, clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private Connection conn(String provider, boolean disableCooling) {
        return store.create(new NewConnection(provider, "c", ProviderClass.APIKEY, "sk-" + provider, null, null, 1, true, null, null,
                disableCooling, null, null, null));
    }

    private void used(Connection c, String ip, long agoMs) {
        logs.append(List.of(new ProxyLogRow(clock.millis() - agoMs, "r", c.provider(), c.id(), "m", 200, 1, null, ip)));
    }

    private static Verdict rateLimit() {
        return Verdict.of(FailureReason.RATE_LIMIT_EXCEEDED, 429, true, LockScope.MODEL);
    }

    private ConnectionState state(Connection c) {
        return store.find(c.id()).orElseThrow().state();
    }

    private List<String> fail(Connection c, Verdict v) {
        cooldowns.onFailure(c.id(), v, "429", null);
        return locks.coolSiblings(c, v.reason());
    }

    @Test
    void theFamilyComesFromTheHooksUnlessTheEnvironmentSaysOtherwise_EB1() {
        assertThat(EgressLocks.family(List.of(OPENCODE), null).keySet()).containsExactlyInAnyOrder("opencode-go", "opencode-cli");
        for (String off : List.of("none", "off", "false", "0", " NONE ")) {
            assertThat(EgressLocks.family(List.of(OPENCODE), off)).isEmpty();
        }
        assertThat(EgressLocks.family(List.of(OPENCODE), "opencode-zen, opencode-go").keySet())
                .containsExactlyInAnyOrder("opencode-zen", "opencode-go");
    }

    @Test
    void onlyQuotaAndRateLimit429sOfTheFamilyApply_EB1() {
        assertThat(locks.applies("opencode-go", rateLimit())).isTrue();
        assertThat(locks.applies("opencode-go", Verdict.of(FailureReason.QUOTA_EXHAUSTED, 429, true, LockScope.MODEL))).isTrue();
        assertThat(locks.applies("opencode-zen", rateLimit())).isFalse();
        assertThat(locks.applies("opencode-go", Verdict.of(FailureReason.CONCURRENCY_LIMITED, 429, true, LockScope.CONNECTION))).isFalse();
        assertThat(locks.applies("opencode-go", Verdict.of(FailureReason.SERVER_ERROR, 503, true, LockScope.EXACT))).isFalse();
    }

    @Test
    void siblingsOnTheSameIpCoolUntilTheFailingConnectionDoes_EB1_EB2() {
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-cli", false);
        Connection c = conn("opencode-go", false);
        used(a, "127.0.0.2", 1_000);
        used(b, "127.0.0.2", 2_000);
        used(c, "127.0.0.3", 3_000);
        assertThat(fail(a, rateLimit())).containsExactly(b.id());
        assertThat(state(b).rateLimitedUntil()).isEqualTo(state(a).rateLimitedUntil()).isEqualTo(clock.millis() + 3_000);
        assertThat(state(b).testStatus()).isEqualTo("unavailable");
        assertThat(state(b).backoffLevel()).isZero();
        assertThat(state(c)).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void noKnownIpCoolsOnlyTheFailingConnection_EB2() {
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-go", false);
        used(b, "127.0.0.2", 1_000);
        assertThat(fail(a, rateLimit())).isEmpty();
        assertThat(state(b)).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void historyOlderThan24hDoesNotCount_EB2() {
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-go", false);
        used(a, "127.0.0.2", 1_000);
        used(b, "127.0.0.2", EgressLocks.LOOKUP_WINDOW_MS + 1);
        assertThat(fail(a, rateLimit())).isEmpty();
    }

    @Test
    void theIpSeenByThisProcessBeatsAnOlderLogRow_EB2() {
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-go", false);
        used(a, "127.0.0.2", 1_000);
        used(b, "127.0.0.2", 1_000);
        locks.recordAttempt(b.id(), "127.0.0.9");
        assertThat(fail(a, rateLimit())).isEmpty();
    }

    @Test
    void sampledAttemptLogStillTellsEachConnectionsLastEgressIp_issue26_EB2_EB4() {
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-cli", false);
        Connection moved = conn("opencode-go", false);
        Connection steady = conn("opencode-go", false);
        // no success is sampled: only what the egress lookup needs reaches proxy_logs
        AttemptLog attemptLog = new AttemptLog(new RecentRequests(RecentRequests.DEFAULT_CAPACITY), row -> logs.append(List.of(row)), 0,
                AttemptLog.RANDOM);
        long start = clock.millis() - 20 * 3_600_000L;
        int attempts = 0;
        for (long t = start; t < clock.millis(); t += 60_000) {
            attemptLog.record(new ProxyLogRow(t, "r", a.provider(), a.id(), "m", 200, 1, null, "127.0.0.2"));
            attemptLog.record(new ProxyLogRow(t, "r", b.provider(), b.id(), "m", 200, 1, null, "127.0.0.2"));
            // moved left .2 for .7 an hour ago
            String ip = t < clock.millis() - 3_600_000L ? "127.0.0.2" : "127.0.0.7";
            attemptLog.record(new ProxyLogRow(t, "r", moved.provider(), moved.id(), "m", 200, 1, null, ip));
            attempts += 3;
        }
        // steady was used once, 23 h 59 min ago
        attemptLog.record(new ProxyLogRow(clock.millis() - EgressLocks.LOOKUP_WINDOW_MS + 60_000, "r", steady.provider(), steady.id(), "m",
                200, 1, null, "127.0.0.2"));
        assertThat(logs.recent(attempts).size()).as("rows persisted of %d attempts", attempts).isLessThan(attempts / 8);

        // a fresh process knows only the table
        EgressLocks fresh = new EgressLocks(EgressLocks.family(List.of(OPENCODE), null), store, logs, cooldowns, clock);
        cooldowns.onFailure(a.id(), rateLimit(), "429", null);
        assertThat(fresh.coolSiblings(a, FailureReason.RATE_LIMIT_EXCEEDED)).containsExactlyInAnyOrder(b.id(), steady.id());
        assertThat(state(moved)).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void theKnownLimitASiblingThatMovedIsJudgedByItsHistoricIp_EB5() {
        Connection a = conn("opencode-go", false);
        Connection moved = conn("opencode-go", false);
        used(a, "127.0.0.2", 1_000);
        // moved's proxy changed an hour ago, but it has not been used since: the history still says .2
        used(moved, "127.0.0.2", 3_600_000);
        assertThat(fail(a, rateLimit())).containsExactly(moved.id());
    }

    @Test
    void terminalLongerCoolingAndDisableCoolingSiblingsAreLeftAlone_EB2() {
        Connection a = conn("opencode-go", false);
        Connection banned = conn("opencode-go", false);
        Connection longer = conn("opencode-go", false);
        Connection exempt = conn("opencode-go", true);
        for (Connection c : List.of(a, banned, longer, exempt)) {
            used(c, "127.0.0.2", 1_000);
        }
        ConnectionState ban = new ConnectionState("banned", null, "deactivated", "banned", null, 0, 0);
        store.updateState(banned.id(), ban);
        ConnectionState hour = new ConnectionState("unavailable", clock.millis() + 3_600_000, "quota", "quota_exhausted", null, 2, 0);
        store.updateState(longer.id(), hour);
        assertThat(fail(a, rateLimit())).isEmpty();
        assertThat(state(banned)).isEqualTo(ban);
        assertThat(state(longer)).isEqualTo(hour);
        assertThat(state(exempt)).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void aFailingConnectionThatMayNotCoolSharesNothing_EB2() {
        Connection a = conn("opencode-go", true);
        Connection b = conn("opencode-go", false);
        used(a, "127.0.0.2", 1_000);
        used(b, "127.0.0.2", 1_000);
        assertThat(fail(a, rateLimit())).isEmpty();
        assertThat(state(b)).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void aCooldownThatAlreadyEndedCoolsNoSibling_EB2() {
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-go", false);
        used(a, "127.0.0.2", 1_000);
        used(b, "127.0.0.2", 1_000);
        cooldowns.onFailure(a.id(), rateLimit(), "429", null);
        clock.advance(Duration.ofSeconds(3));
        assertThat(locks.coolSiblings(a, FailureReason.RATE_LIMIT_EXCEEDED)).isEmpty();
        assertThat(state(b)).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void connectionsOnTheDefaultRouteShareOneBucket_EB2() {
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-cli", false);
        locks.recordAttempt(a.id(), EgressLocks.DIRECT_ROUTE);
        locks.recordAttempt(b.id(), EgressLocks.DIRECT_ROUTE);
        assertThat(fail(a, rateLimit())).containsExactly(b.id());
    }

    @Test
    void bucketKeysComeFromTheProvidersHook_EB1() {
        EgressBucketing bySlash24 = new EgressBucketing() {
            @Override
            public String name() {
                return "subnet";
            }

            @Override
            public Set<String> providers() {
                return Set.of("opencode-go");
            }

            @Override
            public String bucketKey(String provider, String egressIp) {
                return egressIp.substring(0, egressIp.lastIndexOf('.'));
            }
        };
        EgressLocks subnet = new EgressLocks(Map.of("opencode-go", bySlash24), store, logs, cooldowns, clock);
        Connection a = conn("opencode-go", false);
        Connection b = conn("opencode-go", false);
        used(a, "10.0.0.2", 1_000);
        used(b, "10.0.0.7", 1_000);
        cooldowns.onFailure(a.id(), rateLimit(), "429", null);
        assertThat(subnet.coolSiblings(a, FailureReason.RATE_LIMIT_EXCEEDED)).containsExactly(b.id());
    }
}
