package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.engine.ClusterSync;
import dev.sluice.runtime.resilience.engine.Resilience;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.TurnSteps;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The instances' event channel over a real redis-server's pub/sub (NF-6). */
class RedisClusterEventsTest {

    @TempDir
    Path dir;
    @RegisterExtension
    final RedisInstances redis = new RedisInstances();
    private final List<Database> dbs = new ArrayList<>();

    @AfterEach
    void stop() {
        dbs.forEach(Database::close);
    }

    /** An instance whose received events are collected. */
    private SharedState instance(List<ClusterEvent> received) {
        SharedState s = redis.instance();
        s.events().subscribe(received::add);
        await().atMost(Duration.ofSeconds(2)).until(s::eventsSubscribed);
        return s;
    }

    @Test
    void anEventPublishedByOneInstanceArrivesOnTheOtherWithinASecondAndNotBackOnItself_NF6() {
        List<ClusterEvent> onA = new CopyOnWriteArrayList<>();
        List<ClusterEvent> onB = new CopyOnWriteArrayList<>();
        SharedState a = instance(onA);
        SharedState b = instance(onB);
        assertThat(a.instanceId()).isNotEqualTo(b.instanceId());

        ClusterEvent pause = new ClusterEvent.Paused("c1", "gemini-2.5-pro", 3_000);
        a.events().publish(pause);
        a.events().publish(new ClusterEvent.PacingLearned("c1", 10_000, 30_000, 100, 2));
        await().atMost(Duration.ofSeconds(1)).until(() -> onB.size() == 2);
        assertThat(onB).containsExactly(pause, new ClusterEvent.PacingLearned("c1", 10_000, 30_000, 100, 2));

        b.events().publish(new ClusterEvent.BreakersReset(null));
        await().atMost(Duration.ofSeconds(1)).until(() -> onA.size() == 1);
        assertThat(onA).containsExactly(new ClusterEvent.BreakersReset(null));
        assertThat(onB).as("its own event is not delivered back").hasSize(2);
    }

    @Test
    void twoInstancesComponentsOnOneRedisApplyEachOthersPausesAndPacingWithinASecond_RQ4_RQ10_NF6() {
        List<ConnectionGates> gates = new ArrayList<>();
        List<SharedState> states = new ArrayList<>();
        for (String name : List.of("a", "b")) {
            SharedState s = redis.instance();
            Database db = Database.open(dir.resolve(name));
            dbs.add(db);
            JdbcConnectionStore store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])),
                    InstantSource.system());
            ConnectionGates g = new ConnectionGates(InstantSource.system(), n -> { }, TurnSteps.NONE);
            Resilience r = new Resilience(CircuitBreakers.local(InstantSource.system(), () -> ResilienceSettings.DEFAULTS, BreakerStore.none()),
                    ConnectionCooldowns.local(store, InstantSource.system(), () -> ResilienceSettings.DEFAULTS),
                    ModelLockouts.local(InstantSource.system(), () -> ResilienceSettings.DEFAULTS),
                    ProviderCooldowns.local(InstantSource.system(), () -> ResilienceSettings.DEFAULTS));
            ClusterSync.start(s.events(), InstantSource.system(), List.of(r.breakers(), r.cooldowns(), r.lockouts(), r.providerCooldowns(), g));
            await().atMost(Duration.ofSeconds(2)).until(s::eventsSubscribed);
            gates.add(g);
            states.add(s);
        }
        states.get(0).events().publish(new ClusterEvent.Paused("c1", null, 60_000));
        states.get(0).events().publish(new ClusterEvent.PacingLearned("c1", 10_000, 30_000, 100, 2));
        await().atMost(Duration.ofSeconds(1)).until(() -> gates.get(1).pausedUntil("c1") > 0 && gates.get(1).learned("c1") != null);
        assertThat(gates.get(1).learned("c1").spacingMs()).isEqualTo(10_000);
        assertThat(gates.get(0).pausedUntil("c1")).as("the sender's own event is not applied again").isZero();

        states.get(0).events().publish(new ClusterEvent.PacingEnded("c1"));
        await().atMost(Duration.ofSeconds(1)).until(() -> gates.get(1).learned("c1") == null);
    }

    @Test
    void afterARestartOfRedisTheSubscriberSubscribesAgain_NF6() {
        List<ClusterEvent> onB = new CopyOnWriteArrayList<>();
        SharedState a = instance(new CopyOnWriteArrayList<>());
        SharedState b = instance(onB);
        redis.server().stop();
        await().atMost(Duration.ofSeconds(2)).until(() -> !b.eventsSubscribed());
        // Redis down: publishing is dropped within the call timeout, never thrown
        long t0 = System.nanoTime();
        a.events().publish(new ClusterEvent.PacingEnded("lost"));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));

        redis.restart();
        await().atMost(Duration.ofSeconds(10)).until(b::eventsSubscribed);
        a.events().publish(new ClusterEvent.ConnectionCleared("c1"));
        await().atMost(Duration.ofSeconds(1)).until(() -> onB.contains(new ClusterEvent.ConnectionCleared("c1")));
        assertThat(onB).doesNotContain(new ClusterEvent.PacingEnded("lost"));
    }

    @Test
    void aSubscriptionThatWentSilentIsDroppedAndSubscribedAgain_NF6() {
        RedisClient client = new RedisClient(redis.settings(), RedisClient.PROBE_EVERY_MS);
        List<ClusterEvent> got = new CopyOnWriteArrayList<>();
        RedisClusterEvents listener = new RedisClusterEvents(client, "listener", 200);
        try (client; listener) {
            listener.subscribe(got::add);
            await().atMost(Duration.ofSeconds(2)).until(listener::subscribed);
            redis.server().freeze();
            try {
                await().atMost(Duration.ofSeconds(3)).until(() -> !listener.subscribed());
            } finally {
                redis.server().thaw();
            }
            await().atMost(Duration.ofSeconds(10)).until(listener::subscribed);
            SharedState a = instance(new CopyOnWriteArrayList<>());
            a.events().publish(new ClusterEvent.ConnectionCleared("c9"));
            await().atMost(Duration.ofSeconds(1)).until(() -> got.contains(new ClusterEvent.ConnectionCleared("c9")));
        }
    }

    @Test
    void aResetDeletesTheSharedBreakersAndWindowsOfItsScopeOnly_NF6_CB7() {
        SharedState a = instance(new CopyOnWriteArrayList<>());
        SharedState b = instance(new CopyOnWriteArrayList<>());
        BreakerKey glm = new BreakerKey("glm", "open.bigmodel.cn:443");
        BreakerKey star = new BreakerKey("g*m", "h:1");
        BreakerKey openai = new BreakerKey("openai", "api.openai.com:443");
        for (BreakerKey k : List.of(glm, star, openai)) {
            a.breakers().opened(k, 60_000, 60_000);
        }
        a.windows().cooling("glm", 60_000);
        a.windows().cooling("openai", 60_000);

        // as the admin service does: delete the shared keys, then announce the reset (issue 26: a's mirror follows the announcement)
        await().atMost(Duration.ofSeconds(5)).until(() -> a.eventsSubscribed() && b.eventsSubscribed() && a.breakers().admit(glm, false, 1_000) > 0);
        b.breakers().reset("g*m");
        b.events().publish(new ClusterEvent.BreakersReset("g*m"));
        await().atMost(Duration.ofSeconds(5)).until(() -> a.breakers().admit(star, false, 1_000) == 0);
        assertThat(a.breakers().admit(glm, false, 1_000)).as("a pattern in a provider id is a literal").isPositive();
        b.breakers().reset("glm");
        b.events().publish(new ClusterEvent.BreakersReset("glm"));
        await().atMost(Duration.ofSeconds(5)).until(() -> a.breakers().admit(glm, false, 1_000) == 0);
        assertThat(a.breakers().admit(openai, false, 1_000)).isPositive();
        b.breakers().reset(null);
        b.windows().clearedAll();
        b.events().publish(new ClusterEvent.BreakersReset(null));
        await().atMost(Duration.ofSeconds(5)).until(() -> a.breakers().admit(openai, false, 1_000) == 0);
        assertThat(a.windows().remainingMs("glm")).isZero();
        try (RedisClient raw = new RedisClient(redis.settings(), 0)) {
            assertThat((java.util.Set<String>) raw.call(j -> j.keys("sluice:*"))).as("the shared keys are gone").isEmpty();
        }
        assertThat(a.windows().remainingMs("openai")).isZero();
    }
}
