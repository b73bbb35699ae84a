package dev.sluice.runtime.routing;

import static dev.sluice.runtime.routing.PipelineFixture.chat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.PassthroughCall;
import dev.sluice.api.chat.ChatMessage;
import dev.sluice.api.chat.ChatRequest;
import dev.sluice.api.chat.Role;
import dev.sluice.runtime.combo.ComboTarget;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.gate.ConnectionGates;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.stream.StreamRules;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The request pipeline end to end without a server: {@link dev.sluice.runtime.entry.RequestRouter} → combos → the attempt
 * loop → the resilience engine, over scripted executors. Every test also checks that each
 * admission the pipeline opened was closed exactly once.
 */
class RequestPipelineTest {

    @TempDir
    Path dir;

    private PipelineFixture f;

    private PipelineFixture fixture() {
        f = new PipelineFixture(dir);
        return f;
    }

    @AfterEach
    void everyAdmissionWasClosed() {
        if (f != null) {
            assertThat(f.dispatcher.openLeases()).as("admissions left open").isZero();
            f.close();
        }
    }

    private static List<String> called(ScriptedExecutor e) {
        return e.calls.stream().map(ScriptedExecutor.Call::connectionId).toList();
    }

    @Test
    void aFailingConnectionFallsBackToTheNextInPriorityOrder() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("acme", "b", 2);
        f.add("acme", "c", 3);
        f.acme.on(a.id(), ScriptedExecutor.status(503, "overloaded"));

        Outcome outcome = f.route(chat("acme/m1", false));

        assertThat(outcome).isInstanceOf(Outcome.Served.class);
        Outcome.Served served = (Outcome.Served) outcome;
        assertThat(served.connection().id()).isEqualTo(b.id());
        assertThat(served.reply()).isInstanceOf(Reply.Complete.class);
        assertThat(called(f.acme)).containsExactly(a.id(), b.id());
        assertThat(f.log).extracting(r -> r.connectionId() + ":" + r.status()).containsExactly(a.id() + ":503", b.id() + ":200");
        // the served answer holds its admission until it is written
        assertThat(f.dispatcher.openLeases()).isEqualTo(1);
        served.close();
        served.close();
        assertThat(f.dispatcher.openLeases()).isZero();
    }

    @Test
    void anExecutorsRecoveryRetriesOnTheSameConnectionBeforeTheGenericFailurePath() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("acme", "b", 2);
        f.acme.on(a.id(), ScriptedExecutor.status(429, "usage limit"), ScriptedExecutor.status(429, "busy"), ScriptedExecutor::ok);
        f.acme.recovery = call -> call.retries() == 0 ? dev.sluice.api.Recovery.retryNow()
                : dev.sluice.api.Recovery.retryAfter(java.time.Duration.ofMillis(20));

        Outcome outcome = f.route(chat("acme/m1", false));

        assertThat(outcome).isInstanceOf(Outcome.Served.class);
        assertThat(((Outcome.Served) outcome).connection().id()).isEqualTo(a.id());
        assertThat(called(f.acme)).containsExactly(a.id(), a.id(), a.id());
        assertThat(f.acme.recoveries).extracting(dev.sluice.api.RecoveryCall::retries).containsExactly(0, 1);
        assertThat(f.acme.recoveries.get(1).waited()).isZero();
        assertThat(f.acme.recoveries.get(1).budget()).isPositive();
        // the recovered failures never reached the failure path: one attempt, served, nothing cooled
        assertThat(f.log).extracting(r -> r.connectionId() + ":" + r.status()).containsExactly(a.id() + ":200");
        assertThat(f.store.store.find(a.id()).orElseThrow().state().testStatus()).isEqualTo("active");
        ((Outcome.Served) outcome).close();
        assertThat(f.dispatcher.openLeases()).isZero();
        assertThat(called(f.acme)).doesNotContain(b.id());
    }

    @Test
    void aRecoveryWaitLongerThanTheBudgetHandsTheFailureOnAndTheWalkGoesOn() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("acme", "b", 2);
        f.acme.on(a.id(), ScriptedExecutor.status(503, "overloaded"));
        f.acme.recovery = call -> dev.sluice.api.Recovery.retryAfter(java.time.Duration.ofHours(1));

        Outcome outcome = f.route(chat("acme/m1", false));

        assertThat(((Outcome.Served) outcome).connection().id()).isEqualTo(b.id());
        assertThat(called(f.acme)).containsExactly(a.id(), b.id());
        ((Outcome.Served) outcome).close();
    }

    @Test
    void aRequestErrorStopsTheWalkAndCoolsNothing() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        f.add("acme", "b", 2);
        f.acme.on(a.id(), ScriptedExecutor.status(400, "messages: field required"));

        Outcome outcome = f.route(chat("acme/m1", false));

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.verdict().status()).isEqualTo(400);
            assertThat(failed.verdict().fallback()).isFalse();
            assertThat(failed.attempts()).isEqualTo(1);
            assertThat(failed.connection().id()).isEqualTo(a.id());
        });
        assertThat(called(f.acme)).containsExactly(a.id());
        assertThat(f.reload(a).state().testStatus()).isEqualTo("active");
        assertThat(f.reload(a).state().rateLimitedUntil()).isNull();
        assertThat(f.breaker("acme").failureCount()).isZero();
    }

    @Test
    void exceptionsFailuresAndEarlyStreamDeathsEachCloseTheirAdmission() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("acme", "b", 2);
        Connection c = f.add("acme", "c", 3);
        f.acme.on(a.id(), ScriptedExecutor.throwing());
        f.acme.on(b.id(), ScriptedExecutor.status(500, "boom"));
        f.acme.on(c.id(), f.acme.stream(0));
        java.util.concurrent.atomic.AtomicInteger tally = new java.util.concurrent.atomic.AtomicInteger();

        Outcome outcome = f.route(chat("acme/m1", true), tally::incrementAndGet);

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.attempts()).isEqualTo(3);
            assertThat(failed.connection().id()).isEqualTo(c.id());
            assertThat(failed.failure()).isInstanceOf(AttemptFailure.EarlyEof.class);
            assertThat(failed.failure().clientCode()).isEqualTo("STREAM_EARLY_EOF");
            assertThat(failed.failure().describe()).contains("ended before its first useful event");
        });
        // ST-0: the stream that ended before anything useful got one more go on the same connection
        assertThat(called(f.acme)).containsExactly(a.id(), b.id(), c.id(), c.id());
        assertThat(f.acme.closes).hasValue(2);
        assertThat(f.dispatcher.openLeases()).isZero();
        assertThat(f.log).extracting(r -> r.errorType()).containsExactly("quality_failure", "server_error", "stream_early_eof",
                "network_error");
        assertThat(f.dispatcher.streams().snapshot()).containsEntry("early_eof", 2L);
        // issue 35 §4: the count travels with the request, one per proxy_logs row, the early-EOF re-send's included
        assertThat(f.log).hasSize(4);
        assertThat(tally).hasValue(4);
    }

    @Test
    void aFailureThatAllowsNoFallbackEndsTheWalkAfterOneCountedAttempt_issue35() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("acme", "b", 2);
        f.acme.on(a.id(), ScriptedExecutor.status(400, "messages: field required"));
        f.acme.on(b.id(), ScriptedExecutor::ok);
        java.util.concurrent.atomic.AtomicInteger tally = new java.util.concurrent.atomic.AtomicInteger();

        Outcome outcome = f.route(chat("acme/m1", false), tally::incrementAndGet);

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Failed.class, failed -> assertThat(failed.connection().id()).isEqualTo(a.id()));
        assertThat(called(f.acme)).containsExactly(a.id());
        assertThat(tally).hasValue(1);
        assertThat(f.dispatcher.openLeases()).isZero();
    }

    @Test
    void aServedStreamHoldsTheConnectionsPermitUntilClosedAndReleasesItOnce() {
        PipelineFixture f = fixture();
        Connection a = f.addCapped("acme", "a", 1, 1);
        f.acme.on(a.id(), f.acme.stream(3));

        Outcome.Served served = (Outcome.Served) f.route(chat("acme/m1", true));

        assertThat(served.reply()).isInstanceOfSatisfying(Reply.Stream.class, s -> assertThat(s.prefix()).hasSize(1));
        assertThat(f.gates.snapshot(a.id()).running()).isEqualTo(1);
        served.close();
        served.close();
        assertThat(f.gates.snapshot(a.id()).running()).isZero();
        assertThat(f.acme.closes).hasValue(1);
    }

    @Test
    void aClientThatLeavesWhileQueuedIsRefusedAndHoldsNothing() {
        PipelineFixture f = fixture();
        Connection a = f.addCapped("acme", "a", 1, 1);
        Outcome.Served first = (Outcome.Served) f.route(chat("acme/m1", false));

        Outcome second = f.route(chat("acme/m1", false), Caller.of("k1", false, Set.of(), () -> false));

        assertThat(second).isInstanceOfSatisfying(Outcome.Refused.class, r -> {
            assertThat(r.refusal()).isEqualTo(ConnectionGates.Refusal.CLIENT_DISCONNECTED);
            assertThat(r.clientGone()).isTrue();
        });
        assertThat(f.dispatcher.openLeases()).isEqualTo(1);
        assertThat(called(f.acme)).containsExactly(a.id());
        first.close();
        assertThat(f.gates.snapshot(a.id()).running()).isZero();
        assertThat(f.gates.snapshot(a.id()).queued()).isZero();
    }

    @Test
    void aComboFallsBackToItsNextTargetAndHoldsTheServedTargetsAdmission() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("beta", "b", 1);
        f.acme.on(a.id(), ScriptedExecutor.status(502, "bad gateway"));
        f.combo("duo", "priority", new ComboTarget("acme/m1", null, null, null, null), new ComboTarget("beta/m2", null, null, null, null));

        Outcome outcome = f.route(chat("duo", false));

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Served.class, s -> {
            assertThat(s.connection().id()).isEqualTo(b.id());
            assertThat(s.route().upstreamModel()).isEqualTo("m2");
        });
        assertThat(called(f.acme)).containsExactly(a.id());
        assertThat(f.beta.calls).extracting(ScriptedExecutor.Call::model).containsExactly("m2");
        ((Outcome.Served) outcome).close();
    }

    @Test
    void aComboStopsAtARequestErrorAndSaysWhichComboAnswered() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        f.add("beta", "b", 1);
        f.acme.on(a.id(), ScriptedExecutor.status(400, "bad request"));
        f.combo("duo", "priority", new ComboTarget("acme/m1", null, null, null, null), new ComboTarget("beta/m2", null, null, null, null));

        Outcome outcome = f.route(chat("duo", false));

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.combo()).isNotNull();
            assertThat(failed.combo().combo().name()).isEqualTo("duo");
            assertThat(failed.verdict().status()).isEqualTo(400);
        });
        assertThat(f.beta.calls).isEmpty();
    }

    @Test
    void aDialectRequestIsPassedThroughToAnUpstreamThatSpeaksItAndTranslatedForOneThatDoesNot() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        f.acme.passthrough = true;
        ChatRequest parsed = new ChatRequest("acme/m1", List.of(ChatMessage.text(Role.USER, "hi")), null, null, false, null, null, null,
                null, null);
        ClientRequest messages = new ClientRequest.Dialect(parsed, PassthroughCall.ANTHROPIC_MESSAGES,
                model -> ("{\"model\":\"" + model + "\"}").getBytes(StandardCharsets.UTF_8), Map.of());

        try (Outcome.Served served = (Outcome.Served) f.route(messages)) {
            assertThat(served.reply()).isInstanceOf(Reply.Raw.class);
            assertThat(f.acme.calls).containsExactly(new ScriptedExecutor.Call(a.id(), null, "passthrough", "{\"model\":\"m1\"}"));
        }
        assertThat(f.acme.closes).hasValue(1);

        f.acme.passthrough = false;
        try (Outcome.Served served = (Outcome.Served) f.route(messages)) {
            assertThat(served.reply()).isInstanceOf(Reply.Complete.class);
            assertThat(f.acme.calls.get(1).kind()).isEqualTo("chat");
        }
    }

    @Test
    void anUnknownModelIsUnroutableAndEmbeddingsNeedAProviderThatServesThem() {
        PipelineFixture f = fixture();
        f.add("acme", "a", 1);

        assertThat(f.route(chat("nope/m9", false))).isEqualTo(new Outcome.Unroutable("nope/m9", Outcome.Unroutable.Why.MODEL_NOT_FOUND, null));
        assertThat(f.acme.calls).isEmpty();
    }

    @Test
    void theExecutionBoundIsTheGatewaysOwnTimeoutAndCountsForNoMechanism_BO7() {
        f = new PipelineFixture(dir, Duration.ofMillis(50));
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        f.settings.set(new ResilienceSettings(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(), d.streamStallCooldown(),
                d.modelLockout(), d.comboCooldownWait(), new ResilienceSettings.RequestQueue(30_000, 1, 0, true),
                d.quotaShareConcurrencyLimit(), d.streamRecovery(),
                d.serviceUnavailableCooldown()));
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("acme", "b", 2);
        f.acme.on(a.id(), ScriptedExecutor.hanging());
        f.acme.on(b.id(), ScriptedExecutor.hanging());

        Outcome outcome = f.route(chat("acme/m1", false));

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.failure()).isEqualTo(new AttemptFailure.GatewayTimer(AttemptFailure.Timer.EXECUTION_BOUND, 50));
            assertThat(failed.failure().clientCode()).isEqualTo("RATE_LIMIT_EXECUTION_TIMEOUT");
            assertThat(failed.verdict().status()).isEqualTo(504);
            assertThat(failed.verdict().requestScoped()).isTrue();
            assertThat(failed.attempts()).isEqualTo(2);
        });
        // the gateway's own timer is no evidence about the upstream: no breaker count, no cooldown
        assertThat(f.breaker("acme").failureCount()).isZero();
        assertThat(f.breaker("acme").state()).isEqualTo(BreakerState.CLOSED);
        for (Connection c : List.of(a, b)) {
            assertThat(f.reload(c).state().testStatus()).isEqualTo("active");
            assertThat(f.reload(c).state().rateLimitedUntil()).isNull();
        }
        assertThat(f.log).extracting(r -> r.errorType()).containsExactly("timeout", "timeout");
    }

    private void streamRules(long readinessMs) {
        StreamRules d = StreamRules.DEFAULTS;
        f.streamRules.set(new StreamRules(readinessMs, d.idleTimeoutMs(), d.keepAliveIntervalMs(), d.attemptDeadlineMs(),
                d.earlyEofRetries(), d.throughput()));
    }

    @Test
    void aStreamThatSendsNothingUsefulInTimeFailsOverAndCountsForNoMechanism_ST0_BO7() {
        PipelineFixture f = fixture();
        streamRules(300);
        Connection a = f.add("acme", "a", 1);
        Connection b = f.add("acme", "b", 2);
        // a role-only chunk and heartbeats prove nothing: the gate keeps waiting, then gives up
        f.acme.on(a.id(), f.acme.streamThen(List.of(ScriptedExecutor.roleChunk(), dev.sluice.api.chat.StreamChunk.heartbeat("c", "m")),
                true));
        f.acme.on(b.id(), f.acme.streamThen(List.of(ScriptedExecutor.roleChunk(), ScriptedExecutor.contentChunk("hi")), false));

        try (Outcome.Served served = (Outcome.Served) f.route(chat("acme/m1", true))) {
            assertThat(served.connection().id()).isEqualTo(b.id());
            // the role chunk travels with the first useful one
            assertThat(((Reply.Stream) served.reply()).prefix()).hasSize(2);
        }
        assertThat(f.log).extracting(r -> r.connectionId() + ":" + r.errorType()).containsExactly(a.id() + ":timeout", b.id() + ":null");
        assertThat(f.breaker("acme").failureCount()).isZero();
        assertThat(f.reload(a).state().rateLimitedUntil()).isNull();
        assertThat(f.reload(a).state().testStatus()).isEqualTo("active");
        assertThat(f.dispatcher.streams().snapshot()).containsEntry("readiness_timeout", 1L);
        assertThat(f.acme.closes).as("the silent stream was closed").hasValue(2);
    }

    @Test
    void whenNoStreamGetsReadyTheClientGetsTheReadinessTimeout_ST0() {
        PipelineFixture f = fixture();
        streamRules(200);
        Connection a = f.add("acme", "a", 1);
        f.acme.on(a.id(), f.acme.streamThen(List.of(), true));

        assertThat(f.route(chat("acme/m1", true))).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.failure()).isEqualTo(new AttemptFailure.GatewayTimer(AttemptFailure.Timer.STREAM_READINESS, 200));
            assertThat(failed.failure().clientCode()).isEqualTo("STREAM_READINESS_TIMEOUT");
            assertThat(failed.verdict().status()).isEqualTo(504);
        });
    }

    @Test
    void aClientThatLeavesWhileTheGateWaitsEndsTheRequestAndCoolsNothing_BO6() {
        PipelineFixture f = fixture();
        Connection a = f.add("acme", "a", 1);
        f.add("acme", "b", 2);
        f.acme.on(a.id(), f.acme.streamThen(List.of(), true));

        Outcome outcome = f.route(chat("acme/m1", true), Caller.of("k1", false, Set.of(), () -> false));

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Failed.class, failed -> {
            assertThat(failed.failure()).isInstanceOf(AttemptFailure.ClientGone.class);
            assertThat(failed.verdict().status()).isEqualTo(499);
            assertThat(failed.verdict().fallback()).isFalse();
        });
        assertThat(called(f.acme)).containsExactly(a.id());
        assertThat(f.reload(a).state().testStatus()).isEqualTo("active");
        assertThat(f.breaker("acme").failureCount()).isZero();
    }

    @Test
    void aClientThatLeavesIsNoticedWhileTheUpstreamSendsHeartbeatsBeforeAnythingUseful_BO6() {
        // review finding: the gate asked the client only when the upstream was silent
        java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);
        dev.sluice.api.chat.ChunkStream chatty = new dev.sluice.api.chat.ChunkStream() {
            @Override
            public dev.sluice.api.chat.StreamChunk next() throws java.io.IOException {
                try {
                    never.await(100, java.util.concurrent.TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    throw new java.io.IOException(e);
                }
                return dev.sluice.api.chat.StreamChunk.heartbeat("id", "m");
            }

            @Override
            public void close() {
                never.countDown();
            }
        };
        StreamRules rules = new StreamRules(5_000, 180_000, 15_000, 1_800_000, 1, StreamRules.Throughput.OFF);
        // the gate's own scale (it reads System.nanoTime); nothing here measures it: had the gate not asked the
        // client while heartbeats kept coming, the attempt would end at the 5 s readiness bound, a GatewayTimer
        Attempt a = new StreamGate(rules, () -> false, dev.sluice.runtime.io.AnswerBuffers.DEFAULTS).open(new dev.sluice.api.ChatOutcome.Streaming(chatty,
                new dev.sluice.api.upstream.ResponseHead(200, Map.of())), System.nanoTime(), "r1");
        assertThat(a).isEqualTo(new Attempt.Failed(new AttemptFailure.ClientGone()));
    }
}
