package dev.sluice.runtime.resilience.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.breaker.shared.BreakerBoard;
import dev.sluice.runtime.resilience.breaker.shared.SharedCircuitBreakers;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.cooldown.shared.CooldownBoard;
import dev.sluice.runtime.resilience.cooldown.shared.SharedConnectionCooldowns;
import dev.sluice.runtime.resilience.gate.shared.SharedPermits;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the mechanisms tell and ask the shared boards (NF-6), with in-memory boards on the test
 * clock standing in for Redis (whose own behaviour RedisSharedStateTest checks on a real server).
 */
class SharedBoardsTest {

    private static final BreakerKey KEY = new BreakerKey("glm", "open.bigmodel.cn:443");

    @TempDir
    Path dir;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(ResilienceSettings.DEFAULTS);
    private final Boards boards = new Boards();
    private Database db;
    private JdbcConnectionStore store;

    /** A cooldown board and a breaker board that behave like the Redis ones, on the test clock. */
    private final class Boards implements CooldownBoard, BreakerBoard {
        final Map<String, Long> cooledUntil = new HashMap<>();
        final Map<BreakerKey, long[]> breakers = new HashMap<>();
        int admitCalls;

        @Override
        public boolean shared() {
            return true;
        }

        @Override
        public void cooled(String connectionId, long remainingMs) {
            cooledUntil.put(connectionId, clock.millis() + remainingMs);
        }

        @Override
        public void cleared(String connectionId) {
            cooledUntil.remove(connectionId);
        }

        @Override
        public long remainingMs(String connectionId) {
            return Math.max(0, cooledUntil.getOrDefault(connectionId, 0L) - clock.millis());
        }

        @Override
        public boolean claim(String connectionId, long remainingMs) {
            if (remainingMs(connectionId) > 0) {
                return false;
            }
            cooled(connectionId, remainingMs);
            return true;
        }

        @Override
        public void opened(BreakerKey key, long periodMs, long probeLeaseMs) {
            breakers.put(key, new long[] {clock.millis() + periodMs, 0});
        }

        @Override
        public void closed(BreakerKey key) {
            breakers.remove(key);
        }

        @Override
        public long admit(BreakerKey key, boolean claim, long probeLeaseMs) {
            admitCalls++;
            long[] b = breakers.get(key);
            long now = clock.millis();
            if (b == null) {
                return ADMITTED;
            }
            if (now < b[0]) {
                return b[0] - now;
            }
            if (now < b[1]) {
                return b[1] - now;
            }
            if (claim) {
                b[1] = now + probeLeaseMs;
            }
            return PROBE;
        }

        @Override
        public void reset(String provider) {
            breakers.keySet().removeIf(k -> provider == null || k.provider().equals(provider));
        }

        @Override
        public void released(BreakerKey key) {
            long[] b = breakers.get(key);
            if (b != null) {
                b[1] = 0;
            }
        }
    }

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private Connection connection() {
        return store.create(new NewConnection("glm", "k", ProviderClass.APIKEY, "sk-1", null, null, 1, true, null, null, false,
                null, null, null));
    }

    @Test
    void aCooldownIsAnnouncedWhenWrittenAndWithdrawnWhenASuccessClearsIt_NF6_CC7() {
        ConnectionCooldowns cooldowns = SharedConnectionCooldowns.over(ConnectionCooldowns.local(store, clock, settings::get), boards);
        Connection c = connection();
        Verdict limited = Verdict.builder(FailureReason.RATE_LIMIT_EXCEEDED, 429, LockScope.CONNECTION).hint(60_000L, Verdict.HintSource.HEADER).build();
        assertThat(cooldowns.onFailure(c.id(), limited, "slow down", null).cooledMs()).isEqualTo(60_000);
        assertThat(boards.remainingMs(c.id())).isEqualTo(60_000);
        cooldowns.onSuccess(store.find(c.id()).orElseThrow());
        assertThat(boards.cooledUntil).doesNotContainKey(c.id());
    }

    @Test
    void aFailureOfABurstAnotherInstanceAlreadyCooledTakesNoSecondBackoffStep_NF6_CC3() {
        ConnectionCooldowns cooldowns = SharedConnectionCooldowns.over(ConnectionCooldowns.local(store, clock, settings::get), boards);
        Connection c = connection();
        Verdict limited = Verdict.builder(FailureReason.RATE_LIMIT_EXCEEDED, 429, LockScope.CONNECTION).build();
        // another instance's failure of the same burst cooled it; its row has not arrived here yet
        boards.cooled(c.id(), 30_000);
        ConnectionCooldowns.Outcome absorbed = cooldowns.onFailure(c.id(), limited, "slow down", null);
        assertThat(absorbed.absorbed()).isTrue();
        assertThat(absorbed.cooledMs()).isZero();
        assertThat(store.find(c.id()).orElseThrow().state().backoffLevel()).as("no second step for one burst").isZero();
        assertThat(boards.remainingMs(c.id())).as("the other instance's cooldown stands").isEqualTo(30_000);

        clock.advance(Duration.ofMillis(30_000));
        ConnectionCooldowns.Outcome next = cooldowns.onFailure(c.id(), limited, "slow down", null);
        assertThat(next.absorbed()).isFalse();
        assertThat(next.cooledMs()).isPositive();
        assertThat(store.find(c.id()).orElseThrow().state().backoffLevel()).isEqualTo(1);
        assertThat(boards.remainingMs(c.id())).isEqualTo(next.cooledMs());
    }

    @Test
    void selectionHoldsBackAConnectionAnotherInstanceCooledBeforeItsRowArrives_NF6() {
        CircuitBreakers breakers = CircuitBreakers.local(clock, settings::get, BreakerStore.none());
        ResilienceEngine engine = new ResilienceEngine(new FailureClassifier(clock, ErrorRules.NONE), settings::get,
                ResilienceEngine.standard(SharedConnectionCooldowns.over(ConnectionCooldowns.local(store, clock, settings::get), boards), ProviderCooldowns.local(clock, settings::get), null, ModelLockouts.local(clock, settings::get), breakers),
                new QuotaFamilies(List.of()), new StatusRestatement(List.of()), null);
        Connection c = connection();
        Candidate candidate = new Candidate("glm", ProviderClass.APIKEY, c, KEY, "glm-5", null);
        assertThat(engine.exclusion(candidate, clock.millis())).isNull();
        // another instance cooled it: this instance's row still says active
        boards.cooled(c.id(), 30_000);
        Exclusion held = engine.exclusion(candidate, clock.millis());
        assertThat(held.reason()).isEqualTo(Exclusion.Reason.UNAVAILABLE);
        assertThat(held.remainingMs()).isEqualTo(30_000);
        clock.advance(Duration.ofMillis(30_000));
        assertThat(engine.exclusion(candidate, clock.millis())).isNull();
    }

    @Test
    void aBreakerOpenedOnOneInstanceRefusesOnAnotherAndOneProbeOverBothClosesIt_NF6_CB1() {
        CircuitBreakers a = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        CircuitBreakers b = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        int threshold = ResilienceSettings.DEFAULTS.circuitBreaker().forClass(ProviderClass.APIKEY).failureThreshold();
        for (int i = 0; i < threshold; i++) {
            a.onFailure(KEY, ProviderClass.APIKEY, "conn-" + i, "server_error");
        }
        assertThat(a.view(KEY, ProviderClass.APIKEY).state()).isEqualTo(BreakerState.OPEN);
        long period = a.retryAfterMs(KEY, ProviderClass.APIKEY);
        assertThat(b.admit(KEY, ProviderClass.APIKEY).admitted()).as("B's own breaker saw nothing").isFalse();
        assertThat(b.canExecute(KEY, ProviderClass.APIKEY)).isFalse();
        assertThat(b.retryAfterMs(KEY, ProviderClass.APIKEY)).isEqualTo(period);

        clock.advance(Duration.ofMillis(period));
        CircuitBreakers.Admission probeOnB = b.admit(KEY, ProviderClass.APIKEY);
        assertThat(probeOnB.admitted()).isTrue();
        assertThat(a.admit(KEY, ProviderClass.APIKEY).admitted()).as("one probe over both instances").isFalse();
        assertThat(b.admit(KEY, ProviderClass.APIKEY).admitted()).isFalse();

        b.onSuccess(KEY, ProviderClass.APIKEY, "conn-b");
        assertThat(boards.breakers).doesNotContainKey(KEY);
        assertThat(b.admit(KEY, ProviderClass.APIKEY).admitted()).isTrue();
        assertThat(a.admit(KEY, ProviderClass.APIKEY).admitted()).as("A's own half-open probe").isTrue();
    }

    @Test
    void aResetOnAnyInstanceDeletesTheSharedOpenStateOfItsBreakers_NF6_CB7() {
        CircuitBreakers a = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        CircuitBreakers b = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        BreakerKey other = new BreakerKey("openai", "api.openai.com:443");
        boards.opened(KEY, 60_000, CircuitBreakers.PROBE_LEASE_MS);
        boards.opened(other, 60_000, CircuitBreakers.PROBE_LEASE_MS);
        assertThat(a.admit(KEY, ProviderClass.APIKEY).admitted()).isFalse();

        b.reset("glm");
        assertThat(a.admit(KEY, ProviderClass.APIKEY).admitted()).isTrue();
        assertThat(a.admit(other, ProviderClass.APIKEY).admitted()).as("another provider's").isFalse();
        b.reset();
        assertThat(a.admit(other, ProviderClass.APIKEY).admitted()).isTrue();
    }

    @Test
    void aFailedSharedProbeOpensTheBreakerOnEveryInstanceAgain_NF6_BO3() {
        CircuitBreakers a = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        CircuitBreakers b = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        boards.opened(KEY, 1_000, CircuitBreakers.PROBE_LEASE_MS);
        clock.advance(Duration.ofMillis(1_000));
        CircuitBreakers.Admission probe = b.admit(KEY, ProviderClass.APIKEY);
        assertThat(probe.admitted()).isTrue();
        b.onFailure(KEY, ProviderClass.APIKEY, "conn-b", "server_error");
        assertThat(a.admit(KEY, ProviderClass.APIKEY).admitted()).isFalse();
        assertThat(a.retryAfterMs(KEY, ProviderClass.APIKEY)).isPositive();
    }

    @Test
    void aProbeThatEndsWithoutEvidenceLetsAnotherInstanceProbe_NF6_CB1() {
        CircuitBreakers a = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        CircuitBreakers b = SharedCircuitBreakers.over(CircuitBreakers.local(clock, settings::get, BreakerStore.none()), boards, settings::get);
        boards.opened(KEY, 1_000, CircuitBreakers.PROBE_LEASE_MS);
        clock.advance(Duration.ofMillis(1_000));
        CircuitBreakers.Admission probe = b.admit(KEY, ProviderClass.APIKEY);
        assertThat(a.admit(KEY, ProviderClass.APIKEY).admitted()).isFalse();
        b.onNeutral(KEY, probe);
        assertThat(a.admit(KEY, ProviderClass.APIKEY).admitted()).isTrue();
    }

    @Test
    void withoutABoardNothingIsAskedAndBehaviourIsAsOnOneInstance_NF6() {
        assertThat(CooldownBoard.NONE.shared()).isFalse();
        assertThat(BreakerBoard.NONE.shared()).isFalse();
        assertThat(SharedPermits.NONE.shared()).isFalse();
        assertThat(SharedPermits.NONE.tryAcquire("c", "m", 1, 1)).isSameAs(SharedPermits.Held.LOCAL);
    }
}
