package dev.sluice.runtime.routing;

import static dev.sluice.runtime.routing.PipelineFixture.chat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.combo.routing.ComboRouter;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.store.Connection;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ComboRouter} on its own collaborators (the real target scan over a fresh connection
 * store, the real attempt loop over scripted executors, a clock its waits move): which targets a
 * combo tries and in what order, what ends a combo request, its attempt bound, the cooldown wait
 * (CO-3) and the emergency fallback (OF-3). Lives beside {@link PipelineFixture}, which assembles
 * them. Every test also checks that each admission opened was closed.
 */
class ComboRouterTest {

    @TempDir
    Path dir;
    PipelineFixture f;

    @BeforeEach
    void open() {
        f = new PipelineFixture(dir);
    }

    @AfterEach
    void everyAdmissionWasClosed() {
        assertThat(f.dispatcher.openLeases()).as("admissions left open").isZero();
        f.close();
    }

    private static ComboTarget target(String model) {
        return new ComboTarget(model, null, null, null, null);
    }

    private static ComboTarget pinned(String model, Connection c) {
        return new ComboTarget(model, c.id(), null, null, null);
    }

    private static List<String> called(ScriptedExecutor e) {
        return e.calls.stream().map(ScriptedExecutor.Call::connectionId).toList();
    }

    private String served(Outcome o) {
        assertThat(o).isInstanceOf(Outcome.Served.class);
        try (Outcome.Served s = (Outcome.Served) o) {
            return s.connection().id();
        }
    }

    @Test
    void thePriorityStrategyTriesTargetsInTheirOrderAndTheFirstThatServesEndsIt_CO1() {
        f.add("acme", "a", 1);
        Connection b = f.add("beta", "b", 1);
        f.combo("duo", "priority", target("beta/m2"), target("acme/m1"));
        assertThat(served(f.route(chat("duo", false)))).isEqualTo(b.id());
        assertThat(f.acme.calls).isEmpty();
        assertThat(f.beta.calls).extracting(ScriptedExecutor.Call::model).containsExactly("m2");
    }

    @Test
    void aTargetWithNoConnectionThatCanServeIsSkippedWithoutAnAttempt_CO1() {
        Connection b = f.add("beta", "b", 1);
        f.store.add("acme", "off", 1, false, null); // disabled: no connection of acme can serve
        f.combo("duo", "priority", target("acme/m1"), target("nobody/else"), target("beta/m2"));
        assertThat(served(f.route(chat("duo", false)))).isEqualTo(b.id());
        assertThat(f.acme.calls).isEmpty();
        assertThat(f.log).extracting(r -> r.connectionId()).containsExactly(b.id());
    }

    @Test
    void aTargetPinnedToAConnectionTheCallerMayNotUseIsSkipped_CO1() {
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("beta", "b", 1);
        f.combo("duo", "priority", pinned("acme/m1", a), pinned("beta/m2", b));
        Outcome o = f.route(chat("duo", false), Caller.of("k1", false, Set.of(b.id()), ClientLiveness.ALWAYS));
        assertThat(served(o)).isEqualTo(b.id());
        assertThat(f.acme.calls).isEmpty();
    }

    @Test
    void aPinnedTargetIsServedByItsConnectionOnly() {
        f.add("acme", "a1", 1);
        Connection a2 = f.add("acme", "a2", 2);
        f.combo("one", "priority", pinned("acme/m1", a2));
        assertThat(served(f.route(chat("one", false)))).isEqualTo(a2.id());
        assertThat(called(f.acme)).containsExactly(a2.id());
    }

    @Test
    void aFailureThatAllowsFallbackMovesToTheNextTargetAndOneThatDoesNotEndsTheRequest_CO2() {
        Connection a1 = f.add("acme", "a1", 1);
        Connection a2 = f.add("acme", "a2", 1);
        Connection b = f.add("beta", "b", 1);
        f.acme.on(a1.id(), ScriptedExecutor.status(502, "bad gateway"));
        f.acme.on(a2.id(), ScriptedExecutor.status(400, "bad request"));
        f.combo("trio", "priority", pinned("acme/m1", a1), pinned("acme/m1", a2), target("beta/m2"));
        Outcome o = f.route(chat("trio", false));
        assertThat(o).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.verdict().status()).isEqualTo(400);
            assertThat(failed.connection().id()).isEqualTo(a2.id());
            assertThat(failed.combo().combo().name()).isEqualTo("trio");
        });
        assertThat(called(f.acme)).containsExactly(a1.id(), a2.id());
        assertThat(called(f.beta)).as("a request error is the client's: no other target is tried").doesNotContain(b.id());
    }

    @Test
    void maxAttemptsBoundsTheTargetsTriedInOneRequest() {
        Connection a1 = f.add("acme", "a1", 1);
        Connection a2 = f.add("acme", "a2", 1);
        f.add("beta", "b", 1);
        f.acme.on(a1.id(), ScriptedExecutor.status(502, "bad gateway"));
        f.acme.on(a2.id(), ScriptedExecutor.status(502, "bad gateway"));
        f.combo("trio", "priority", Map.of(ComboRouter.MAX_ATTEMPTS, 2), pinned("acme/m1", a1), pinned("acme/m1", a2), target("beta/m2"));
        Outcome o = f.route(chat("trio", false));
        assertThat(o).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.verdict().status()).isEqualTo(502);
            assertThat(failed.connection().id()).as("the last target tried").isEqualTo(a2.id());
            assertThat(failed.combo().combo().name()).isEqualTo("trio");
        });
        assertThat(f.beta.calls).as("a third attempt is past maxAttempts").isEmpty();
    }

    @Test
    void aTransient429IsWaitedOutOnTheClockAndTheTargetTriedAgain_CO3() {
        Connection a = f.add("acme", "a", 1);
        f.acme.on(a.id(), ScriptedExecutor.status(429, "rate limited"), ScriptedExecutor::ok);
        f.combo("one", "priority", target("acme/m1"));
        long before = f.store.now();
        assertThat(served(f.route(chat("one", false)))).isEqualTo(a.id());
        assertThat(called(f.acme)).containsExactly(a.id(), a.id());
        long cooldown = ResilienceSettings.DEFAULTS.connectionCooldown().apikey().baseCooldownMs();
        assertThat(f.comboWaits).as("slept in slices of 100 ms").allSatisfy(ms -> assertThat(ms).isBetween(1L, 100L));
        long waited = f.comboWaits.stream().mapToLong(Long::longValue).sum();
        assertThat(waited).as("the connection's 429 cooldown and the 50 ms margin").isEqualTo(cooldown + 50);
        assertThat(f.store.now() - before).as("the retry came after the wait, on the clock").isEqualTo(waited);
    }

    @Test
    void aClientThatLeavesDuringTheWaitEndsItWithTheAnswerItHadThen_CO3() {
        Connection a = f.add("acme", "a", 1);
        f.acme.on(a.id(), ScriptedExecutor.status(429, "rate limited"), ScriptedExecutor::ok);
        f.combo("one", "priority", target("acme/m1"));
        // connected until the router has slept three slices
        Caller leaving = Caller.of("k1", false, Set.of(), () -> f.comboWaits.size() < 3);
        assertThat(f.route(chat("one", false), leaving)).isInstanceOfSatisfying(Outcome.Failed.class,
                failed -> assertThat(failed.verdict().status()).isEqualTo(429));
        assertThat(f.comboWaits).hasSize(3);
        assertThat(called(f.acme)).as("no attempt after the client left").containsExactly(a.id());
    }

    @Test
    void withTheCooldownWaitTurnedOffA429EndsTheRequest_CO4() {
        Connection a = f.add("acme", "a", 1);
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        ResilienceSettings.ComboCooldownWait w = d.comboCooldownWait();
        f.settings.set(new ResilienceSettings(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(), d.streamStallCooldown(),
                d.modelLockout(), new ResilienceSettings.ComboCooldownWait(false, w.maxWaitMs(), w.maxAttempts(), w.budgetMs()),
                d.requestQueue(), d.quotaShareConcurrencyLimit(), d.streamRecovery(), d.serviceUnavailableCooldown()));
        f.acme.on(a.id(), ScriptedExecutor.status(429, "rate limited"), ScriptedExecutor::ok);
        f.combo("one", "priority", target("acme/m1"));
        assertThat(f.route(chat("one", false))).isInstanceOfSatisfying(Outcome.Failed.class,
                failed -> assertThat(failed.verdict().status()).isEqualTo(429));
        assertThat(f.comboWaits).isEmpty();
        assertThat(called(f.acme)).containsExactly(a.id());
    }

    @Test
    void whenEveryTargetFailedTheEmergencyFallbackIsTriedLast_OF3() {
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("beta", "b", 1);
        f.acme.on(a.id(), ScriptedExecutor.status(502, "bad gateway"));
        f.emergencyFallback.set("beta/m2");
        f.combo("one", "priority", target("acme/m1"));
        assertThat(served(f.route(chat("one", false)))).isEqualTo(b.id());
        assertThat(f.beta.calls).extracting(ScriptedExecutor.Call::model).containsExactly("m2");
    }

    @Test
    void aFailedEmergencyFallbackLeavesTheCombosOwnAnswer_OF3() {
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("beta", "b", 1);
        f.acme.on(a.id(), ScriptedExecutor.status(502, "bad gateway"));
        f.beta.on(b.id(), ScriptedExecutor.status(503, "overloaded"));
        f.emergencyFallback.set("beta/m2");
        f.combo("one", "priority", target("acme/m1"));
        assertThat(f.route(chat("one", false))).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.verdict().status()).isEqualTo(502);
            assertThat(failed.connection().id()).isEqualTo(a.id());
        });
        assertThat(called(f.beta)).containsExactly(b.id());
    }

    @Test
    void aRequestErrorIsNotSentToTheEmergencyFallback_OF3() {
        Connection a = f.add("acme", "a", 1);
        f.add("beta", "b", 1);
        f.acme.on(a.id(), ScriptedExecutor.status(400, "bad request"));
        f.emergencyFallback.set("beta/m2");
        f.combo("one", "priority", target("acme/m1"));
        assertThat(f.route(chat("one", false))).isInstanceOf(Outcome.Failed.class);
        assertThat(f.beta.calls).isEmpty();
    }
}
