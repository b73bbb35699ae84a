package dev.sluice.runtime.resilience.cooldown.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.HoldCheck;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ClearResult;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.cooldown.CooldownListener;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared decorator of connection cooldown (NF-6) over a real local mechanism, with a fake
 * board that records what it is told and asked, and what the connection's row said at that moment.
 */
class SharedConnectionCooldownsTest {

    private static final Verdict LIMITED = Verdict.builder(FailureReason.RATE_LIMIT_EXCEEDED, 429, LockScope.CONNECTION)
            .hint(60_000L, Verdict.HintSource.HEADER).build();

    @TempDir
    Path dir;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    private final FakeBoard board = new FakeBoard();
    private Database db;
    private JdbcConnectionStore store;
    private ConnectionCooldowns local;
    private ConnectionCooldowns shared;

    /** Records every call with the connection's stored status at that moment; answers as told. */
    private final class FakeBoard implements CooldownBoard {
        final List<String> calls = new ArrayList<>();
        final Map<String, Long> announced = new HashMap<>();
        boolean refuseClaims;

        private String row(String connectionId) {
            return store.find(connectionId).orElseThrow().state().testStatus();
        }

        @Override
        public void cooled(String connectionId, long remainingMs) {
            calls.add("cooled " + remainingMs + " row=" + row(connectionId));
        }

        @Override
        public void cleared(String connectionId) {
            calls.add("cleared row=" + row(connectionId));
        }

        @Override
        public long remainingMs(String connectionId) {
            calls.add("remainingMs");
            return announced.getOrDefault(connectionId, 0L);
        }

        @Override
        public boolean claim(String connectionId, long remainingMs) {
            calls.add("claim " + remainingMs + " row=" + row(connectionId));
            return !refuseClaims;
        }
    }

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
        local = ConnectionCooldowns.local(store, clock, () -> ResilienceSettings.DEFAULTS);
        shared = SharedConnectionCooldowns.over(local, board);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private Connection connection() {
        return store.create(new NewConnection("glm", "k", ProviderClass.APIKEY, "sk-1", null, null, 1, true, null, null, false,
                null, null, null));
    }

    private HoldCheck check(Connection c) {
        return new HoldCheck().of("glm", ProviderClass.APIKEY, store.find(c.id()).orElseThrow(),
                new BreakerKey("glm", "open.bigmodel.cn:443"), null, clock.millis());
    }

    @Test
    void aFailureClaimsItsCooldownBeforeTheWriteAndAnnouncesItAfter_NF6_CC3() {
        Connection c = connection();
        ConnectionCooldowns.Outcome o = shared.onFailure(c.id(), LIMITED, "slow down", null);
        assertThat(o.cooledMs()).isEqualTo(60_000);
        assertThat(board.calls).containsExactly("claim 60000 row=active", "cooled 60000 row=unavailable");
    }

    @Test
    void aFailureWhoseClaimAnotherInstanceHoldsIsAbsorbedAndWritesNothing_NF6_CC3() {
        Connection c = connection();
        board.refuseClaims = true;
        ConnectionCooldowns.Outcome o = shared.onFailure(c.id(), LIMITED, "slow down", null);
        assertThat(o.absorbed()).isTrue();
        assertThat(o.cooledMs()).isZero();
        assertThat(store.find(c.id()).orElseThrow().state().rateLimitedUntil()).as("the other instance's burst took the step").isNull();
        assertThat(board.calls).containsExactly("claim 60000 row=active");
    }

    @Test
    void aFailureOnACoolingConnectionClaimsNothing_CC3() {
        Connection c = connection();
        shared.onFailure(c.id(), LIMITED, "slow down", null);
        board.calls.clear();
        clock.advance(Duration.ofSeconds(1));
        assertThat(shared.onFailure(c.id(), Verdict.builder(FailureReason.RATE_LIMIT_EXCEEDED, 429, LockScope.CONNECTION).build(),
                "again", null).absorbed()).isTrue();
        assertThat(board.calls).isEmpty();
    }

    @Test
    void aSuccessThatEndsACooldownWithdrawsItAfterTheWrite_NF6_CC7() {
        Connection c = connection();
        shared.onFailure(c.id(), LIMITED, "slow down", null);
        board.calls.clear();
        shared.onSuccess(store.find(c.id()).orElseThrow());
        assertThat(board.calls).containsExactly("cleared row=active");
    }

    @Test
    void anOperatorsClearWithdrawsTheCooldown_NF6_CC8() {
        Connection c = connection();
        shared.onFailure(c.id(), LIMITED, "slow down", null);
        board.calls.clear();
        assertThat(shared.clear(c.id())).isEqualTo(ClearResult.CLEARED);
        assertThat(board.calls).containsExactly("cleared row=active");
    }

    @Test
    void aSiblingCooledForItsEgressIpIsAnnounced_NF6_EB2() {
        Connection c = connection();
        assertThat(shared.coolUntil(c.id(), clock.millis() + 30_000, FailureReason.QUOTA_EXHAUSTED, "shared IP")).isTrue();
        assertThat(board.calls).containsExactly("cooled 30000 row=unavailable");
    }

    @Test
    void aConnectionTheBoardSaysCoolsIsHeldWhileItsRowStillSaysActive_NF6() {
        Connection c = connection();
        HoldCheck free = check(c);
        assertThat(shared.holds(free)).isFalse();
        board.announced.put(c.id(), 30_000L);
        HoldCheck held = check(c);
        assertThat(shared.holds(held)).isTrue();
        assertThat(held.reason()).isEqualTo(Exclusion.Reason.UNAVAILABLE);
        assertThat(held.remainingMs()).isEqualTo(30_000);
        assertThat(local.holds(check(c))).as("the local mechanism knows nothing of the board").isFalse();
    }

    @Test
    void theConnectionsOwnHoldComesFirstAndAsksNoBoard_CC6() {
        Connection c = connection();
        shared.onFailure(c.id(), LIMITED, "slow down", null);
        board.calls.clear();
        board.announced.put(c.id(), 5_000L);
        HoldCheck held = check(c);
        assertThat(shared.holds(held)).isTrue();
        assertThat(held.remainingMs()).isEqualTo(60_000);
        assertThat(held.cause()).isEqualTo(FailureReason.RATE_LIMIT_EXCEEDED);
        assertThat(board.calls).isEmpty();
    }

    @Test
    void theDecoratorIsTheLocalMechanismsOneListener() {
        assertThatThrownBy(() -> local.listen(new CooldownListener() {
        })).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> shared.listen(CooldownListener.NONE)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void withoutTheDecoratorNothingIsClaimedOrAnnounced() {
        ConnectionCooldowns alone = ConnectionCooldowns.local(store, clock, () -> ResilienceSettings.DEFAULTS);
        Connection c = connection();
        assertThat(alone.onFailure(c.id(), LIMITED, "slow down", null).cooledMs()).isEqualTo(60_000);
        alone.onSuccess(store.find(c.id()).orElseThrow());
        assertThat(board.calls).isEmpty();
    }
}
