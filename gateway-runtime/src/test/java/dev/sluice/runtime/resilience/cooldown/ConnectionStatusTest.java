package dev.sluice.runtime.resilience.cooldown;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.Active;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.CoolingDown;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.Kind;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.Phase;
import dev.sluice.runtime.resilience.cooldown.ConnectionStatus.Terminal;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The connection status state machine (SPEC §8, CC-1, CC-3, CC-6, CC-7, EB-2) and its stored form. */
class ConnectionStatusTest {

    private final TestClock clock = TestClock.create();

    private long now() {
        return clock.millis();
    }

    private static ConnectionState row(String testStatus, Long rateLimitedUntil) {
        return new ConnectionState(testStatus, rateLimitedUntil, "boom", "rate_limit_exceeded", "429", 2, 1);
    }

    private static ConnectionStatus of(Phase phase, long at) {
        return switch (phase) {
            case ACTIVE -> ConnectionStatus.ACTIVE;
            case COOLING_DOWN -> new CoolingDown(at + 60_000);
            case TERMINAL -> Terminal.BANNED;
        };
    }

    // ------------------------------------------------------------------ the stored form (CC-1)

    @Test
    void theStoredStringsAreExactlyTheOldOnes_CC1() {
        assertThat(ConnectionStatus.ACTIVE.wireName()).isEqualTo("active");
        assertThat(new CoolingDown(1).wireName()).isEqualTo("unavailable");
        assertThat(Terminal.BANNED.wireName()).isEqualTo("banned");
        assertThat(Terminal.EXPIRED.wireName()).isEqualTo("expired");
        assertThat(Terminal.CREDITS_EXHAUSTED.wireName()).isEqualTo("credits_exhausted");
        assertThat(ConnectionCooldowns.TERMINAL).containsExactlyInAnyOrder("banned", "expired", "credits_exhausted");
    }

    @Test
    void eachStatusIsStoredAsItsStringAndItsCooldownEnd_CC1() {
        long until = now() + 5_000;
        assertThat(ConnectionStatus.ACTIVE.stored(null, null, null, 0, 0)).isEqualTo(ConnectionState.ACTIVE);
        assertThat(new CoolingDown(until).stored("boom", "rate_limit_exceeded", "429", 2, 1))
                .isEqualTo(row("unavailable", until));
        assertThat(Terminal.EXPIRED.stored("boom", "rate_limit_exceeded", "429", 2, 1)).isEqualTo(row("expired", null));
    }

    @Test
    void aStoredStatusReadsBackAsItself_CC1() {
        long until = now() + 5_000;
        for (ConnectionStatus s : List.of(ConnectionStatus.ACTIVE, new CoolingDown(until), Terminal.BANNED, Terminal.EXPIRED,
                Terminal.CREDITS_EXHAUSTED)) {
            assertThat(ConnectionStatus.of(s.stored("e", "t", "c", 1, 0), now())).as("%s", s).isEqualTo(s);
        }
    }

    @Test
    void aTerminalStringIsTerminalWhateverItsCooldownEnd_CC6() {
        assertThat(ConnectionStatus.of(row("banned", now() + 60_000), now())).isEqualTo(new Terminal(Kind.BANNED));
        assertThat(ConnectionStatus.of(row("credits_exhausted", null), now())).isSameAs(Terminal.CREDITS_EXHAUSTED);
    }

    // ------------------------------------------------------------------ time (CC-7 lazy recovery)

    @Test
    void aCooldownHoldsUntilItsEndAndThenReadsAsActive_CC7() {
        long until = now() + 3_000;
        ConnectionState cooling = row("unavailable", until);
        assertThat(ConnectionStatus.of(cooling, now())).isEqualTo(new CoolingDown(until));
        clock.advance(Duration.ofMillis(2_999));
        assertThat(ConnectionStatus.of(cooling, now())).isEqualTo(new CoolingDown(until));
        clock.advance(Duration.ofMillis(1)); // the end is exclusive
        assertThat(ConnectionStatus.of(cooling, now())).isSameAs(ConnectionStatus.ACTIVE);
        // the row is not rewritten by time: it still says unavailable
        assertThat(cooling.testStatus()).isEqualTo("unavailable");
    }

    @Test
    void coolingIsDecidedByTheCooldownEndNotByTheNonTerminalString_CC7() {
        assertThat(ConnectionStatus.of(row("unavailable", null), now())).isSameAs(ConnectionStatus.ACTIVE);
        assertThat(ConnectionStatus.of(row("active", now() + 1), now())).isEqualTo(new CoolingDown(now() + 1));
    }

    // ------------------------------------------------------------------ the table of moves

    @ParameterizedTest
    @CsvSource({
        "ACTIVE, ACTIVE, true",
        "ACTIVE, COOLING_DOWN, true",
        "ACTIVE, TERMINAL, true",
        "COOLING_DOWN, ACTIVE, true",
        "COOLING_DOWN, COOLING_DOWN, true",
        "COOLING_DOWN, TERMINAL, true",
        "TERMINAL, ACTIVE, false",
        "TERMINAL, COOLING_DOWN, false",
        "TERMINAL, TERMINAL, false"})
    void theTableOfMoves_CC6_CC7(Phase from, Phase to, boolean legal) {
        assertThat(ConnectionStatus.MOVES.get(from).contains(to)).isEqualTo(legal);
        ConnectionStatus a = of(from, now());
        ConnectionStatus b = of(to, now() + 1);
        assertThat(a.canMoveTo(b)).isEqualTo(legal);
        if (legal) {
            assertThat(a.moveTo(b)).isSameAs(b);
        } else {
            assertThatThrownBy(() -> a.moveTo(b)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("illegal connection status move").hasMessageContaining(a.toString())
                    .hasMessageContaining(b.toString());
        }
    }

    @Test
    void everyPhaseHasARow() {
        assertThat(ConnectionStatus.MOVES).containsOnlyKeys(Phase.values());
    }

    @Test
    void aCooldownInForceIsOnlyEverLengthened_CC3_EB2() {
        CoolingDown current = new CoolingDown(now() + 60_000);
        assertThat(current.canMoveTo(new CoolingDown(now() + 60_001))).isTrue();
        assertThat(current.canMoveTo(new CoolingDown(now() + 60_000))).isFalse();
        assertThat(current.canMoveTo(new CoolingDown(now() + 1_000))).isFalse();
        assertThatThrownBy(() -> current.moveTo(new CoolingDown(now() + 1_000))).isInstanceOf(IllegalStateException.class);
        // from active (or a cooldown that ran out) any cooldown may start, however short
        assertThat(ConnectionStatus.ACTIVE.canMoveTo(new CoolingDown(now()))).isTrue();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void nothingLeavesATerminalStatus_CC6(Kind kind) {
        Terminal t = Terminal.of(kind);
        assertThat(t.kind()).isEqualTo(kind);
        for (ConnectionStatus next : List.of(ConnectionStatus.ACTIVE, new CoolingDown(now() + 1), Terminal.BANNED,
                Terminal.EXPIRED, Terminal.CREDITS_EXHAUSTED)) {
            assertThat(t.canMoveTo(next)).as("%s -> %s", t, next).isFalse();
        }
    }

    @Test
    void activeIsOneValue() {
        assertThat(new Active()).isEqualTo(ConnectionStatus.ACTIVE);
        assertThat(ConnectionStatus.ACTIVE.rateLimitedUntil()).isNull();
        assertThat(Terminal.BANNED.rateLimitedUntil()).isNull();
        assertThat(new CoolingDown(42).rateLimitedUntil()).isEqualTo(42L);
    }
}
