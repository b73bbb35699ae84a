package dev.sluice.runtime.resilience.breaker;

import static dev.sluice.api.ProviderClass.APIKEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.BreakerProfile;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Closed;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Degraded;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.HalfOpen;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.History;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Move;
import dev.sluice.runtime.resilience.breaker.BreakerStatus.Open;
import dev.sluice.runtime.resilience.breaker.BreakerStore.BreakerSnapshot;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One breaker's moves are checked against the transition table (SPEC CB-1) before they are
 * installed or persisted; time-driven moves follow the injected clock (CB-6).
 */
class BreakerCellTest {

    private static final BreakerKey KEY = new BreakerKey("glm", "open.bigmodel.cn:443");
    private static final BreakerProfile APIKEY_PROFILE = ResilienceSettings.DEFAULTS.circuitBreaker().forClass(APIKEY);

    private final TestClock clock = TestClock.create();
    private final long t0 = clock.millis();
    private final InMemoryBreakerStore store = new InMemoryBreakerStore();
    private final BreakerPersistence persistence = new BreakerPersistence(store);

    private BreakerCell openedNow() {
        History h = new History(12, 0, t0, "server_error");
        return BreakerCell.restored(new Open(h, t0).toSnapshot(KEY, APIKEY, t0), persistence);
    }

    private void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    @Test
    void aLegalMoveIsInstalledAndPersisted_CB1() {
        BreakerCell cell = BreakerCell.pristine(KEY, APIKEY, t0, persistence);
        advance(1_000);
        Open open = new Open(new History(12, 0, clock.millis(), "server_error"), clock.millis());

        cell.move(new Move(open, "12 failures"), APIKEY, clock.millis());

        assertThat(cell.status()).isEqualTo(open);
        assertThat(cell.updatedAt()).isEqualTo(t0 + 1_000);
        assertThat(store.rows.get(KEY)).isEqualTo(BreakerSnapshot.builder(KEY, BreakerState.OPEN).providerClass(APIKEY)
                .failureCount(12).openedAt(t0 + 1_000).lastFailure(t0 + 1_000, "server_error").updatedAt(t0 + 1_000).build());
    }

    @Test
    void anIllegalMoveIsRefusedAndChangesNothing_CB1() {
        BreakerCell cell = openedNow();
        BreakerStatus before = cell.status();
        advance(60_000);

        assertThatThrownBy(() -> cell.move(new Move(new Closed(History.NONE), "operator"), APIKEY, clock.millis()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("illegal breaker move OPEN -> CLOSED for glm@open.bigmodel.cn:443");
        assertThatThrownBy(() -> cell.move(new Move(new Degraded(History.NONE, 0), "x"), APIKEY, clock.millis()))
                .isInstanceOf(IllegalStateException.class);

        assertThat(cell.status()).isSameAs(before);
        assertThat(cell.updatedAt()).isEqualTo(t0);
        assertThat(store.saves).as("a refused move is never written").hasValue(0);
    }

    @Test
    void stayingInAStateIsNoMoveAndIsPersisted_CB1() {
        BreakerCell cell = BreakerCell.pristine(KEY, APIKEY, t0, persistence);
        cell.move(new Move(new Closed(new History(1, 0, t0, "timeout")), null), APIKEY, t0);
        assertThat(cell.status().history().failureCount()).isEqualTo(1);
        assertThat(store.saves).hasValue(1);
    }

    @Test
    void theOpenPeriodOnTheInjectedClockDecidesOpenToHalfOpen_CB4_CB6() {
        BreakerCell cell = openedNow();

        advance(30_000 - 1);
        cell.elapse(APIKEY_PROFILE, clock.millis());
        assertThat(cell.status().state()).isEqualTo(BreakerState.OPEN);
        assertThat(cell.status().retryAfterMs(APIKEY_PROFILE, clock.millis())).isEqualTo(1);

        advance(1);
        cell.elapse(APIKEY_PROFILE, clock.millis());
        assertThat(cell.status()).isEqualTo(new HalfOpen(new History(12, 0, t0, "server_error"), t0, null, 0));
        assertThat(store.rows.get(KEY).state()).isEqualTo(BreakerState.HALF_OPEN);
        assertThat(store.rows.get(KEY).updatedAt()).isEqualTo(t0 + 30_000);
    }

    @Test
    void theHalfOpenProbeClaimIsNeverPersistedAndOnlyItsHolderReleasesIt_CB1() {
        BreakerCell cell = openedNow();
        advance(30_000);
        cell.elapse(APIKEY_PROFILE, clock.millis());
        int saves = store.saves.get();

        assertThat(cell.admit(APIKEY_PROFILE, false, clock.millis())).as("asking claims nothing")
                .isSameAs(CircuitBreakers.Admission.ADMITTED);
        CircuitBreakers.Admission probe = cell.admit(APIKEY_PROFILE, true, clock.millis());
        assertThat(probe.probe()).isTrue();
        assertThat(cell.admit(APIKEY_PROFILE, true, clock.millis())).isSameAs(CircuitBreakers.Admission.REFUSED);
        cell.releaseIfHeldBy(CircuitBreakers.Admission.newProbe(), "a stranger");
        assertThat(((HalfOpen) cell.status()).probe()).isSameAs(probe);

        advance(BreakerPeriods.probeLeaseMs(APIKEY_PROFILE));
        cell.elapse(APIKEY_PROFILE, clock.millis());
        assertThat(((HalfOpen) cell.status()).probe()).as("lease expired").isNull();
        assertThat(store.saves).hasValue(saves);
    }
}
