package dev.sluice.runtime.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ChatOutcome;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.engine.ResilienceEngine;
import dev.sluice.runtime.resilience.lockout.LockoutFailure;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.store.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which connections may serve a provider, in which order, and which mechanism held the others back
 * (SPEC DM-1, CC-6, CC-7, SEC-4, CO-5).
 */
class ConnectionSelectorTest {

    private static final Caller ANYONE = Caller.of("k", false, Set.of(), ClientLiveness.ALWAYS);

    @TempDir
    Path dir;

    private static final Route ROUTE = new Route(new Provider(BuiltinProviders.OPENAI, call -> new ChatOutcome.Failed(null), "test"),
            "gpt-x", "openai/gpt-x");

    private RoutingFixture fx;
    private ConnectionSelector selector;
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(ResilienceSettings.DEFAULTS);
    private CircuitBreakers breakers;
    private ModelLockouts lockouts;

    @BeforeEach
    void setUp() {
        fx = new RoutingFixture(dir);
        breakers = CircuitBreakers.local(fx.clock, settings::get, BreakerStore.none());
        lockouts = ModelLockouts.local(fx.clock, settings::get);
        ResilienceEngine engine = new ResilienceEngine(new FailureClassifier(fx.clock, ErrorRules.NONE), settings::get,
                ResilienceEngine.standard(ConnectionCooldowns.local(fx.store, fx.clock, settings::get), ProviderCooldowns.local(fx.clock, settings::get), null, lockouts, breakers),
                new QuotaFamilies(List.of()), new StatusRestatement(List.of()), null);
        selector = new ConnectionSelector(fx.store, fx.clock, engine, SessionRouting.NONE);
    }

    /** A cursor drained: what a request would try, in order, and what was held back. */
    record Selection(List<Connection> candidates, List<ConnectionSelector.Excluded> excluded, int eligible) {
        long soonestRetryMs() {
            return excluded.stream().filter(x -> x.exclusion().reason().timer()).mapToLong(x -> x.exclusion().remainingMs()).min().orElse(0);
        }
    }

    private Selection select(Caller caller) {
        ConnectionSelector.Cursor cursor = selector.open(ROUTE, caller);
        List<Connection> out = new ArrayList<>();
        Candidate c;
        while ((c = cursor.next()) != null) {
            out.add(c.connection());
        }
        return new Selection(out, cursor.excluded(), cursor.eligible());
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    private Selection select() {
        return select(ANYONE);
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

        Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(mine.id());
        assertThat(s.eligible()).isEqualTo(1);
    }

    @Test
    void disabledConnectionsAreSkippedAndNotEligible_DM1() {
        fx.add("openai", "off", 1, false, null);
        Connection on = fx.add("openai", "on", 2);

        Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(on.id());
        assertThat(s.eligible()).isEqualTo(1);
    }

    @Test
    void terminalStatesAreSkippedAndNotEligible_CC6() {
        fx.state(fx.add("openai", "banned", 1), "banned", null);
        fx.state(fx.add("openai", "expired", 1), "expired", null);
        fx.state(fx.add("openai", "broke", 1), "credits_exhausted", null);
        Connection ok = fx.add("openai", "ok", 9);

        Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(ok.id());
        assertThat(s.excluded()).extracting(x -> x.exclusion().reason()).containsOnly(Exclusion.Reason.TERMINAL).hasSize(3);
        assertThat(ConnectionCooldowns.TERMINAL).containsExactlyInAnyOrder("banned", "expired", "credits_exhausted");
    }

    @Test
    void onlyTerminalConnectionsGiveNoCandidateAndNothingEligible_CC6() {
        fx.state(fx.add("openai", "banned", 1), "banned", at(60_000));

        Selection s = select();
        assertThat(s.candidates()).isEmpty();
        assertThat(s.excluded()).singleElement().satisfies(x -> assertThat(x.exclusion()).isEqualTo(new Exclusion(Exclusion.Reason.TERMINAL, 0)));
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

        Selection s = select(Caller.of("k", false, Set.of(b.id(), "other"), ClientLiveness.ALWAYS));

        assertThat(s.candidates()).extracting(Connection::id).containsExactly(b.id());
        assertThat(s.eligible()).isEqualTo(1);
        assertThat(select(Caller.of("k", false, Set.of("none-of-them"), ClientLiveness.ALWAYS)).candidates()).isEmpty();
        assertThat(select(ANYONE).candidates()).extracting(Connection::id).containsExactly(a.id(), b.id());
    }

    @Test
    void coolingConnectionsAreSkippedAndTheSoonestRetryIsReported_CC7() {
        fx.state(fx.add("openai", "long", 1), "unavailable", at(5_000));
        fx.state(fx.add("openai", "short", 2), "unavailable", at(2_000));

        Selection s = select();
        assertThat(s.candidates()).isEmpty();
        assertThat(s.eligible()).isEqualTo(2);
        assertThat(s.soonestRetryMs()).isEqualTo(2_000);
        assertThat(s.excluded()).extracting(ConnectionSelector.Excluded::exclusion)
                .containsExactly(new Exclusion(Exclusion.Reason.UNAVAILABLE, 5_000), new Exclusion(Exclusion.Reason.UNAVAILABLE, 2_000));
    }

    @Test
    void aCoolingConnectionIsSkippedWhileOthersServe_CC7() {
        fx.state(fx.add("openai", "cool", 1), "unavailable", at(5_000));
        Connection ok = fx.add("openai", "ok", 2);

        Selection s = select();
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
        Selection atExpiry = select();
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
        Selection s = select();
        assertThat(s.candidates()).isEmpty();
        assertThat(s.eligible()).isZero();
        assertThat(s.soonestRetryMs()).isZero();
    }

    @Test
    void anOpenBreakerHoldsBackEveryConnectionOfItsHost_CB1_BO4() {
        Connection a = fx.add("openai", "a", 1, true, "http://127.0.0.1:9001/v1");
        Connection b = fx.add("openai", "b", 2, true, "http://127.0.0.1:9002/v1");
        BreakerKey hostA = BreakerKey.forBaseUrl("openai", "http://127.0.0.1:9001/v1");
        for (int i = 0; i < 12; i++) {
            breakers.onFailure(hostA, ProviderClass.APIKEY, "c" + i, "server_error");
        }
        Selection s = select();
        assertThat(s.candidates()).extracting(Connection::id).containsExactly(b.id());
        assertThat(s.excluded()).singleElement().satisfies(x -> {
            assertThat(x.candidate().connection().id()).isEqualTo(a.id());
            assertThat(x.exclusion()).isEqualTo(new Exclusion(Exclusion.Reason.CIRCUIT_OPEN, 30_000));
        });
    }

    @Test
    void aModelLockoutHoldsBackOnlyThatModel_ML1() {
        settings.set(ResilienceSettings.of(ResilienceSettings.DEFAULTS.circuitBreaker(), ResilienceSettings.DEFAULTS.providerCooldown(),
                ResilienceSettings.DEFAULTS.connectionCooldown(), ResilienceSettings.DEFAULTS.streamStallCooldown(),
                new ResilienceSettings.ModelLockoutSettings(true, List.of(404), 120_000, 1_800_000, 10, true)));
        Connection a = fx.add("openai", "a", 1);
        lockouts.recordFailure(LockoutFailure.builder("openai", a.id(), "gpt-x").scope(LockScope.MODEL).failure(FailureReason.NOT_FOUND, 404).build());
        Selection s = select();
        assertThat(s.candidates()).isEmpty();
        assertThat(s.excluded()).singleElement().satisfies(x ->
                assertThat(x.exclusion()).isEqualTo(new Exclusion(Exclusion.Reason.MODEL_LOCKOUT, 120_000, FailureReason.NOT_FOUND)));
        assertThat(lockouts.blocking("openai", a.id(), "gpt-y", null)).isNull();
    }


    private static Long at(long ms) {
        return RoutingFixture.T0 + ms;
    }
}
