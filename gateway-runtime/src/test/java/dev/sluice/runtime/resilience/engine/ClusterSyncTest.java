package dev.sluice.runtime.resilience.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.ClusterEvent;
import dev.sluice.runtime.resilience.ClusterEvents;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ModelLockoutSettings;
import dev.sluice.runtime.resilience.ResilienceSettings.ProviderCooldownSettings;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.breaker.InMemoryBreakerStore;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.gate.LearnedRateLimits;
import dev.sluice.runtime.resilience.gate.TurnSteps;
import dev.sluice.runtime.resilience.lockout.LockoutFailure;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.resilience.window.shared.SharedProviderCooldowns;
import dev.sluice.runtime.resilience.window.shared.WindowBoard;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one instance announces on the event channel and another applies to its own memory (NF-6):
 * two instances' gates and resilience state, each on its own test clock (an hour apart: clocks of
 * instances differ), joined by an in-process channel that stands in for Redis pub/sub.
 */
class ClusterSyncTest {

    private static final ModelLockoutSettings LOCKOUT_ON = new ModelLockoutSettings(true,
            List.of(403, 404, 429, 502, 503, 504), 120_000, 1_800_000, 10, true);
    private static final ProviderCooldownSettings D = ResilienceSettings.DEFAULTS.providerCooldown();
    private static final ProviderCooldownSettings WINDOW_ON = new ProviderCooldownSettings(true, D.minRetryCooldownMs(),
            D.maxRetryCooldownMs(), D.oauth(), D.apikey(), D.local());
    private static final ResilienceSettings SETTINGS = ResilienceSettings.of(ResilienceSettings.DEFAULTS.circuitBreaker(), WINDOW_ON,
            ResilienceSettings.DEFAULTS.connectionCooldown(), ResilienceSettings.DEFAULTS.streamStallCooldown(), LOCKOUT_ON);
    private static final BreakerKey KEY = new BreakerKey("glm", "open.bigmodel.cn:443");

    @TempDir
    Path dir;
    private final Bus bus = new Bus();
    private final List<Database> dbs = new ArrayList<>();
    private Instance a;
    private Instance b;

    /** Delivers each event, at once, to every subscriber but its sender: what Redis pub/sub does. */
    private static final class Bus {
        final List<Map.Entry<ClusterEvents, Consumer<ClusterEvent>>> subscribers = new ArrayList<>();
        final List<ClusterEvent> sent = new ArrayList<>();

        ClusterEvents channel() {
            return new ClusterEvents() {
                @Override
                public void publish(ClusterEvent event) {
                    // through the wire format, as Redis carries it
                    ClusterEvent.Received r = ClusterEvent.decode(event.encode("sender"));
                    sent.add(r.event());
                    for (Map.Entry<ClusterEvents, Consumer<ClusterEvent>> s : List.copyOf(subscribers)) {
                        if (s.getKey() != this) {
                            s.getValue().accept(r.event());
                        }
                    }
                }

                @Override
                public void subscribe(Consumer<ClusterEvent> receiver) {
                    subscribers.add(Map.entry(this, receiver));
                }
            };
        }
    }

    /** One instance's state, its clock and its end of the channel. */
    private record Instance(TestClock clock, ConnectionGates gates, Resilience resilience, ClusterEvents events) {
    }

    private Instance instance(Instant at, String name) {
        TestClock clock = TestClock.at(at);
        ClusterEvents events = bus.channel();
        Database db = Database.open(dir.resolve(name));
        dbs.add(db);
        JdbcConnectionStore store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
        Resilience r = new Resilience(CircuitBreakers.local(clock, () -> SETTINGS, new InMemoryBreakerStore()),
                ConnectionCooldowns.local(store, clock, () -> SETTINGS), ModelLockouts.local(clock, () -> SETTINGS),
                SharedProviderCooldowns.over(ProviderCooldowns.local(clock, () -> SETTINGS), WindowBoard.NONE, events, () -> SETTINGS));
        ConnectionGates gates = new ConnectionGates(clock, n -> { }, TurnSteps.NONE);
        ClusterSync.start(events, clock, List.of(r.breakers(), r.cooldowns(), r.lockouts(), r.providerCooldowns(), gates));
        return new Instance(clock, gates, r, events);
    }

    @BeforeEach
    void twoInstances() {
        a = instance(Instant.parse("2026-12-01T10:00:00Z"), "a");
        b = instance(Instant.parse("2026-12-01T11:00:00Z"), "b");
    }

    @AfterEach
    void close() {
        dbs.forEach(Database::close);
    }

    private static ResponseHead head(String... namesAndValues) {
        Map<String, List<String>> h = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            h.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
        }
        return new ResponseHead(200, h);
    }

    @Test
    void aPauseOnOneInstancePausesTheSameQueueOnTheOtherForTheTimeLeft_RQ4_NF6() {
        a.events().publish(new ClusterEvent.Paused("c1", null, 3_000));
        a.events().publish(new ClusterEvent.Paused("c2", "gemini-2.5-pro", 5_000));

        assertThat(b.gates().pausedUntil("c1")).as("on B's own clock").isEqualTo(b.clock().millis() + 3_000);
        assertThat(b.gates().pausedModels("c2")).containsExactly(Map.entry("gemini-2.5-pro", b.clock().millis() + 5_000));
        assertThat(b.gates().pausedUntil("c2")).as("only the model is held").isZero();
        assertThat(a.gates().pausedUntil("c1")).as("the sender applied it already, not again").isZero();

        b.clock().advance(Duration.ofMillis(3_000));
        assertThat(b.gates().pausedUntil("c1")).isZero();
    }

    @Test
    void aPausedGateOnTheOtherInstanceRefusesAWaiterWhoseQueueTimeEndsFirst_RQ4_NF6() throws InterruptedException {
        a.events().publish(new ClusterEvent.Paused("c1", null, 3_000));
        ConnectionGates.Entry e = b.gates().enter("c1", "m", new ConnectionGates.Limits(0, 0, true, 1_000, 0), null);
        assertThat(e).isInstanceOf(ConnectionGates.Refused.class);
        ConnectionGates.Refused refused = (ConnectionGates.Refused) e;
        assertThat(refused.refusal()).isEqualTo(ConnectionGates.Refusal.RATE_LIMIT_QUEUE_TIMEOUT);
        assertThat(refused.retryAfterMs()).isEqualTo(3_000);
    }

    @Test
    void pacingLearnedOnOneInstanceIsInForceOnTheOtherUntilItsResetAndEndsWhenHealthy_RQ10_NF6() {
        LearnedRateLimits.apply(a.gates(), a.events(), "c1", head("x-ratelimit-limit-requests", "100",
                "x-ratelimit-remaining-requests", "2", "x-ratelimit-reset-requests", "30s"), a.clock().millis());

        ConnectionGates.Pacing onA = a.gates().learned("c1");
        assertThat(onA).isEqualTo(new ConnectionGates.Pacing(10_000, a.clock().millis() + 30_000, 100, 2));
        assertThat(b.gates().learned("c1")).isEqualTo(new ConnectionGates.Pacing(10_000, b.clock().millis() + 30_000, 100, 2));
        assertThat(b.gates().learnedAll()).containsOnlyKeys("c1");

        // healthy again, announced to A: B stops pacing too
        LearnedRateLimits.apply(a.gates(), a.events(), "c1", head("x-ratelimit-limit-requests", "100",
                "x-ratelimit-remaining-requests", "90", "x-ratelimit-reset-requests", "30s"), a.clock().millis());
        assertThat(a.gates().learned("c1")).isNull();
        assertThat(b.gates().learned("c1")).isNull();
        assertThat(bus.sent).hasSize(2).last().isEqualTo(new ClusterEvent.PacingEnded("c1"));
    }

    @Test
    void aHealthyAnswerWithNothingLearnedAnnouncesNothing_RQ10_NF6() {
        LearnedRateLimits.apply(a.gates(), a.events(), "c1", head("x-ratelimit-limit-requests", "100",
                "x-ratelimit-remaining-requests", "90", "x-ratelimit-reset-requests", "30s"), a.clock().millis());
        assertThat(bus.sent).isEmpty();
    }

    @Test
    void aResetOnOneInstanceResetsTheBreakersAndWindowsTheOtherHolds_NF6_CB7() {
        for (int i = 0; i < 50 && b.resilience().breakers().view(KEY, ProviderClass.APIKEY).state() != BreakerState.OPEN; i++) {
            b.resilience().breakers().onFailure(KEY, ProviderClass.APIKEY, "conn-" + i, "server_error");
        }
        assertThat(b.resilience().breakers().view(KEY, ProviderClass.APIKEY).state()).isEqualTo(BreakerState.OPEN);
        for (int i = 0; i < 20; i++) {
            b.resilience().providerCooldowns().recordFailure("glm", ProviderClass.APIKEY, "c1");
        }
        assertThat(b.resilience().providerCooldowns().entries()).isNotEmpty();

        a.events().publish(new ClusterEvent.BreakersReset("other"));
        assertThat(b.resilience().breakers().view(KEY, ProviderClass.APIKEY).state()).as("another provider's reset").isEqualTo(BreakerState.OPEN);

        a.events().publish(new ClusterEvent.BreakersReset("glm"));
        assertThat(b.resilience().breakers().view(KEY, ProviderClass.APIKEY).state()).isEqualTo(BreakerState.CLOSED);
        assertThat(b.resilience().providerCooldowns().entries()).as("a provider's reset leaves the windows").isNotEmpty();

        a.events().publish(new ClusterEvent.BreakersReset(null));
        assertThat(b.resilience().providerCooldowns().entries()).isEmpty();
    }

    @Test
    void aSuccessThatEndsAProviderWindowOnOneInstanceEndsTheOthersWindowToo_NF6_PC2() {
        Instance c = instance(Instant.parse("2026-12-01T10:00:00Z"), "c");
        int threshold = WINDOW_ON.apikey().failureThreshold();
        for (Instance i : List.of(a, b)) {
            for (int n = 0; n < threshold; n++) {
                i.resilience().providerCooldowns().recordFailure("glm", ProviderClass.APIKEY, null);
            }
            assertThat(i.resilience().providerCooldowns().providerRemainingMs("glm", ProviderClass.APIKEY)).isPositive();
        }
        c.resilience().providerCooldowns().recordSuccess("glm", null);
        assertThat(bus.sent).as("C had no window of its own to end").isEmpty();

        a.resilience().providerCooldowns().recordSuccess("glm", null);
        assertThat(bus.sent).containsExactly(new ClusterEvent.WindowEnded("glm"));
        assertThat(b.resilience().providerCooldowns().providerRemainingMs("glm", ProviderClass.APIKEY)).isZero();
    }

    @Test
    void clearsOnOneInstanceRemoveTheLockoutsTheOtherRecorded_NF6_ML5_CC8() {
        b.resilience().lockouts().recordFailure(LockoutFailure.builder("codex", "c1", "gpt-5.1").family("gpt-5")
                .failure(FailureReason.QUOTA_EXHAUSTED, 429).build());
        b.resilience().lockouts().recordFailure(LockoutFailure.builder("codex", "c2", "o3").failure(FailureReason.NOT_FOUND, 404).build());
        b.resilience().providerCooldowns().recordFailure("codex", ProviderClass.APIKEY, "c1");
        assertThat(b.resilience().lockouts().activeCount()).isEqualTo(2);

        a.events().publish(new ClusterEvent.ModelCleared("codex", "c2", "o3"));
        assertThat(b.resilience().lockouts().hasAny("c2")).isFalse();
        assertThat(b.resilience().lockouts().hasAny("c1")).isTrue();

        a.events().publish(new ClusterEvent.ConnectionCleared("c1"));
        assertThat(b.resilience().lockouts().activeCount()).isZero();
        assertThat(b.resilience().providerCooldowns().entries()).noneMatch(e -> "c1".equals(e.connectionId()));
    }

    @Test
    void eventsWithNoTimeLeftChangeNothing_NF6() {
        a.events().publish(new ClusterEvent.Paused("c1", null, -5));
        a.events().publish(new ClusterEvent.PacingLearned("c1", 100, 0, 10, 0));
        assertThat(b.gates().pausedUntil("c1")).isZero();
        assertThat(b.gates().learned("c1")).isNull();
        a.events().publish(new ClusterEvent.Paused("c1", null, 10));
        assertThat(b.gates().pausedUntil("c1")).isPositive();
    }

    @Test
    void theWireFormatCarriesEveryEventAndRefusesWhatItCannotCarry_NF6() {
        List<ClusterEvent> all = List.of(new ClusterEvent.Paused("c1", null, 3_000), new ClusterEvent.Paused("c1", "m", 1),
                new ClusterEvent.PacingLearned("c1", 10, 20, 30, 40), new ClusterEvent.PacingEnded("c1"),
                new ClusterEvent.BreakersReset(null), new ClusterEvent.BreakersReset("glm"), new ClusterEvent.WindowEnded("glm"),
                new ClusterEvent.ConnectionCleared("c1"),
                new ClusterEvent.ModelCleared("glm", "c1", "glm-4.6"),
                // issue 26: the shared boards' announcements
                new ClusterEvent.CooldownAnnounced("c1", 60_000), new ClusterEvent.CooldownAnnounced("c1", 0),
                new ClusterEvent.WindowAnnounced("glm", 5_000), new ClusterEvent.BreakerAnnounced("glm", "open.bigmodel.cn:443", 30_000, 330_000),
                new ClusterEvent.LockAnnounced("c1", "family:gpt-5", "gpt-5", "MODEL", "QUOTA_EXHAUSTED", 60_000),
                new ClusterEvent.LocksWithdrawn("c1", List.of("family:gpt-5", "exact:gpt-5.1")), new ClusterEvent.LocksWithdrawn("c1", List.of()));
        for (ClusterEvent e : all) {
            assertThat(ClusterEvent.decode(e.encode("i1"))).isEqualTo(new ClusterEvent.Received("i1", e));
        }
        assertThat(new ClusterEvent.ModelCleared("glm", "c1", "a\nb").encode("i1")).isNull();
        assertThat(ClusterEvent.decode("sluice-event-2\ni1\npaused\nc1\n\n5")).as("another format").isNull();
        assertThat(ClusterEvent.decode(ClusterEvent.FORMAT + "\ni1\npaused\nc1\n\nx")).isNull();
        assertThat(ClusterEvent.decode(ClusterEvent.FORMAT + "\ni1\nunknown\nc1")).isNull();
    }
}
