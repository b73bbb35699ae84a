package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which connections may serve a provider, and in which order (SPEC DM-1, CC-6, CC-7, SEC-4). */
class ConnectionSelectorTest {

    private static final Caller ANYONE = new Caller("k", false, Set.of());

    @TempDir
    Path dir;

    private RoutingFixture fx;
    private ConnectionSelector selector;

    @BeforeEach
    void setUp() {
        fx = new RoutingFixture(dir);
        selector = new ConnectionSelector(fx.store, fx.clock);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    private ConnectionSelector.Selection select() {
        return selector.select("openai", ANYONE);
    }

    @Test
    void lowerPriorityIsTriedFirst_DM1() {
        Connection p3 = fx.add("openai", "p3", 3);
        Connection p1 = fx.add("openai", "p1", 1);
        Connection p2 = fx.add("openai", "p2", 2);

        assertThat(select().candidates()).extracting(Connection::id).containsExactly(p1.id(), p2.id(), p3.id());
    }

    @Test
    void tiesAreBrokenByCreationOrder_DM1() {
        Connection a = fx.add("openai", "a", 1);
        Connection b = fx.add("openai", "b", 1);
        Connection c = fx.add("openai", "c", 1);
        Connection late = fx.add("openai", "late", 2);

        assertThat(select().candidates()).extracting(Connection::id).containsExactly(a.id(), b.id(), c.id(), late.id());
    }

    @Test
    void editingAConnectionKeepsItsPlaceInTheTie_DM1() {
        Connection a = fx.add("openai", "a", 1);
        Connection b = fx.add("openai", "b", 1);
        fx.advance(Duration.ofSeconds(1));
        fx.store.update(a.id(), new dev.sluice.runtime.store.NewConnection("openai", "a2", a.authType(), "sk-new", null, null, 1, true,
                null, null, false, null, null, null), false);

        assertThat(select().candidates()).extracting(Connection::name).containsExactly("a2", "b");
    }

    @Test
    void otherProvidersAreNotCandidates_DM1() {
        Connection mine = fx.add("openai", "mine", 1);
        fx.add("glm", "theirs", 1);

        ConnectionSelector.Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(mine.id());
        assertThat(s.eligible()).isEqualTo(1);
    }

    @Test
    void disabledConnectionsAreSkippedAndNotEligible_DM1() {
        fx.add("openai", "off", 1, false, null);
        Connection on = fx.add("openai", "on", 2);

        ConnectionSelector.Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(on.id());
        assertThat(s.eligible()).isEqualTo(1);
    }

    @Test
    void terminalStatesAreSkippedAndNotEligible_CC6() {
        fx.state(fx.add("openai", "banned", 1), "banned", null);
        fx.state(fx.add("openai", "expired", 1), "expired", null);
        fx.state(fx.add("openai", "broke", 1), "credits_exhausted", null);
        Connection ok = fx.add("openai", "ok", 9);

        ConnectionSelector.Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(ok.id());
        assertThat(s.eligible()).isEqualTo(1);
        assertThat(ConnectionSelector.TERMINAL).containsExactlyInAnyOrder("banned", "expired", "credits_exhausted");
    }

    @Test
    void onlyTerminalConnectionsGiveNoCandidateAndNothingEligible_CC6() {
        fx.state(fx.add("openai", "banned", 1), "banned", at(60_000));

        ConnectionSelector.Selection s = select();
        assertThat(s.candidates()).isEmpty();
        assertThat(s.eligible()).isZero();
        assertThat(s.soonestRetryMs()).isZero();
    }

    @Test
    void unavailableWithoutATimerIsSelectable_CC7() {
        Connection c = fx.state(fx.add("openai", "u", 1), "unavailable", null);

        assertThat(select().candidates()).extracting(Connection::id).containsExactly(c.id());
    }

    @Test
    void allowedConnectionsLimitTheCandidates_SEC4() {
        Connection a = fx.add("openai", "a", 1);
        Connection b = fx.add("openai", "b", 2);

        ConnectionSelector.Selection s = selector.select("openai", new Caller("k", false, Set.of(b.id(), "other")));

        assertThat(s.candidates()).extracting(Connection::id).containsExactly(b.id());
        assertThat(s.eligible()).isEqualTo(1);
        assertThat(selector.select("openai", new Caller("k", false, Set.of("none-of-them"))).candidates()).isEmpty();
        assertThat(selector.select("openai", ANYONE).candidates()).extracting(Connection::id).containsExactly(a.id(), b.id());
    }

    @Test
    void coolingConnectionsAreSkippedAndTheSoonestRetryIsReported_CC7() {
        fx.state(fx.add("openai", "long", 1), "unavailable", at(5_000));
        fx.state(fx.add("openai", "short", 2), "unavailable", at(2_000));

        ConnectionSelector.Selection s = select();
        assertThat(s.candidates()).isEmpty();
        assertThat(s.eligible()).isEqualTo(2);
        assertThat(s.soonestRetryMs()).isEqualTo(2_000);
    }

    @Test
    void aCoolingConnectionIsSkippedWhileOthersServe_CC7() {
        fx.state(fx.add("openai", "cool", 1), "unavailable", at(5_000));
        Connection ok = fx.add("openai", "ok", 2);

        ConnectionSelector.Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(ok.id());
        assertThat(s.eligible()).isEqualTo(2);
    }

    @Test
    void cooldownEndsLazilyWhenTheClockPassesIt_CC7() {
        Connection longer = fx.state(fx.add("openai", "long", 1), "unavailable", at(5_000));
        Connection shorter = fx.state(fx.add("openai", "short", 2), "unavailable", at(2_000));

        fx.advance(Duration.ofMillis(1_999));
        assertThat(select().candidates()).isEmpty();
        assertThat(select().soonestRetryMs()).isEqualTo(1);

        fx.advance(Duration.ofMillis(1));
        ConnectionSelector.Selection atExpiry = select();
        assertThat(atExpiry.candidates()).extracting(Connection::id).containsExactly(shorter.id());
        assertThat(atExpiry.soonestRetryMs()).isEqualTo(3_000);

        fx.advance(Duration.ofSeconds(10));
        assertThat(select().candidates()).extracting(Connection::id).containsExactly(longer.id(), shorter.id());
        assertThat(select().soonestRetryMs()).isZero();
    }

    @Test
    void aPastRateLimitedUntilIsSelectableAgain_CC7() {
        Connection c = fx.state(fx.add("openai", "old", 1), "unavailable", at(-1));

        assertThat(select().candidates()).extracting(Connection::id).containsExactly(c.id());
    }

    @Test
    void noConnectionsGiveAnEmptySelection_DM1() {
        ConnectionSelector.Selection s = select();
        assertThat(s.candidates()).isEmpty();
        assertThat(s.eligible()).isZero();
        assertThat(s.soonestRetryMs()).isZero();
    }

    private static Long at(long ms) {
        return RoutingFixture.T0 + ms;
    }
}
