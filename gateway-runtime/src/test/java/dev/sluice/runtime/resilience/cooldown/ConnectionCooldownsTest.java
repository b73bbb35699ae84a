package dev.sluice.runtime.resilience.cooldown;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.classify.Verdict.HintSource;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.OAuthTokens;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Connection cooldown (SPEC §8): durations, backoff, herd absorption, terminal states, clearing. */
class ConnectionCooldownsTest {

    @TempDir
    Path dir;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(ResilienceSettings.DEFAULTS);
    private Database db;
    private JdbcConnectionStore store;
    private ConnectionCooldowns cooldowns;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
        cooldowns = ConnectionCooldowns.local(store, clock, settings::get);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private Connection apiKey(boolean disableCooling) {
        return store.create(new NewConnection("glm", "k", ProviderClass.APIKEY, "sk-1", null, null, 1, true, null, null,
                disableCooling, null, null, null));
    }

    private Connection oauth() {
        return store.create(new NewConnection("claude", "o", ProviderClass.OAUTH, null, new OAuthTokens("at", "rt", null), null, 1,
                true, null, null, false, null, null, null));
    }

    private static Verdict rateLimit() {
        return Verdict.of(FailureReason.RATE_LIMIT_EXCEEDED, 429, true, LockScope.MODEL);
    }

    private ConnectionState state(Connection c) {
        return store.find(c.id()).orElseThrow().state();
    }

    private long remaining(Connection c) {
        return state(c).rateLimitedUntil() - clock.millis();
    }

    /** Fails the connection, then waits out the cooldown (lazy expiry: no clear happens). */
    private long failAndExpire(Connection c, Verdict v) {
        long cooled = cooldowns.onFailure(c.id(), v, "boom", null).cooledMs();
        clock.advance(Duration.ofMillis(cooled));
        return cooled;
    }

    @Test
    void aStreamStallIsRecordedButCoolsOnlyWhenStreamStallCooldownIsEnabled_CC5() {
        Connection c = apiKey(false);
        cooldowns.onStreamStall(c.id(), "no model output for 180000 ms");
        ConnectionState s = store.find(c.id()).orElseThrow().state();
        assertThat(s.testStatus()).isEqualTo("active");
        assertThat(s.rateLimitedUntil()).isNull();
        assertThat(s.lastErrorType()).isEqualTo("stream_stall");
        assertThat(s.errorCode()).isEqualTo("STREAM_STALL_TIMEOUT");
        assertThat(s.lastError()).isEqualTo("no model output for 180000 ms");

        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        settings.set(ResilienceSettings.of(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(),
                new ResilienceSettings.StreamStallCooldown(true), d.modelLockout()));
        cooldowns.onStreamStall(c.id(), "no model output again");
        ConnectionState cooled = store.find(c.id()).orElseThrow().state();
        assertThat(cooled.testStatus()).isEqualTo("unavailable");
        assertThat(cooled.rateLimitedUntil()).isGreaterThan(clock.millis());
        assertThat(cooled.lastErrorType()).isEqualTo("stream_stall");
    }

    @Test
    void apiKeyBackoffEscalatesAcrossExpiredCooldowns_CC2_BO1() {
        Connection c = apiKey(false);
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            seen.add(failAndExpire(c, rateLimit()));
        }
        assertThat(seen).containsExactly(3_000L, 6_000L, 12_000L, 24_000L, 48_000L, 96_000L, 96_000L, 96_000L);
        assertThat(state(c).backoffLevel()).isEqualTo(5);
    }

    @Test
    void oauthBackoffRunsFromFiveSecondsTo1280_CC2() {
        Connection c = oauth();
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            seen.add(failAndExpire(c, Verdict.of(FailureReason.AUTH_ERROR, 403, true, LockScope.CONNECTION)));
        }
        assertThat(seen).containsExactly(5_000L, 10_000L, 20_000L, 40_000L, 80_000L, 160_000L, 320_000L, 640_000L, 1_280_000L,
                1_280_000L);
    }

    @Test
    void backoffIsCappedAtMaxCooldownMs_CC2() {
        settings.set(ResilienceSettings.of(ResilienceSettings.DEFAULTS.circuitBreaker(), ResilienceSettings.DEFAULTS.providerCooldown(),
                new ResilienceSettings.ConnectionCooldownSettings(ResilienceSettings.DEFAULTS.connectionCooldown().oauth(),
                        new ResilienceSettings.CooldownProfile(3_000, 5, 20_000)),
                ResilienceSettings.DEFAULTS.streamStallCooldown(), ResilienceSettings.DEFAULTS.modelLockout()));
        Connection c = apiKey(false);
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            seen.add(failAndExpire(c, rateLimit()));
        }
        assertThat(seen).containsExactly(3_000L, 6_000L, 12_000L, 20_000L, 20_000L);
    }

    @Test
    void apiKey429PrefersTheUpstreamHint_CC2_BO2() {
        Connection c = apiKey(false);
        ConnectionCooldowns.Outcome o = cooldowns.onFailure(c.id(), rateLimit().withHint(7_000, HintSource.HEADER), "429", null);
        assertThat(o.cooledMs()).isEqualTo(7_000);
        assertThat(remaining(c)).isEqualTo(7_000);
        assertThat(state(c).testStatus()).isEqualTo("unavailable");
        assertThat(state(c).backoffLevel()).isEqualTo(1);
        assertThat(state(c).lastErrorType()).isEqualTo("rate_limit_exceeded");
    }

    @Test
    void bodyTextHintsAreCappedAtMaxCooldownButHeaderHintsAreNot_CC2() {
        Connection a = apiKey(false);
        Connection b = apiKey(false);
        cooldowns.onFailure(a.id(), rateLimit().withHint(7_200_000, HintSource.BODY_TEXT), null, null);
        cooldowns.onFailure(b.id(), rateLimit().withHint(7_200_000, HintSource.HEADER), null, null);
        assertThat(remaining(a)).isEqualTo(1_800_000);
        assertThat(remaining(b)).isEqualTo(7_200_000);
    }

    @Test
    void oauthTakesTheLongerOfHintAndFormula_CC2() {
        Connection c = oauth();
        assertThat(cooldowns.onFailure(c.id(), rateLimit().withHint(1_000, HintSource.HEADER), null, null).cooledMs()).isEqualTo(5_000);
        clock.advance(Duration.ofSeconds(5));
        assertThat(cooldowns.onFailure(c.id(), rateLimit().withHint(60_000, HintSource.HEADER), null, null).cooledMs()).isEqualTo(60_000);
    }

    @Test
    void declaredCooldownIsUsed_quotaOneHour_CC2() {
        Connection c = apiKey(false);
        Verdict quota = new Verdict(FailureReason.QUOTA_EXHAUSTED, 429, true, null, null, 3_600_000L, LockScope.MODEL, false, false,
                false, false, null);
        assertThat(cooldowns.onFailure(c.id(), quota, null, null).cooledMs()).isEqualTo(3_600_000);
    }

    @Test
    void fiftySimultaneousFailuresRaiseBackoffByExactlyOne_CC3() throws Exception {
        Connection c = apiKey(false);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<ConnectionCooldowns.Outcome>> results = new ArrayList<>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 50; i++) {
                results.add(pool.submit(() -> {
                    start.await();
                    return cooldowns.onFailure(c.id(), rateLimit(), "429", null);
                }));
            }
            start.countDown();
        }
        int cooledOnce = 0;
        for (Future<ConnectionCooldowns.Outcome> f : results) {
            if (!f.get().absorbed()) {
                cooledOnce++;
            }
        }
        assertThat(cooledOnce).isEqualTo(1);
        assertThat(state(c).backoffLevel()).isEqualTo(1);
        assertThat(remaining(c)).isEqualTo(3_000);
    }

    @Test
    void aLongerDeclaredCooldownStillExtendsAnActiveOne_CC3() {
        Connection c = apiKey(false);
        cooldowns.onFailure(c.id(), rateLimit(), null, null);
        Verdict quota = new Verdict(FailureReason.QUOTA_EXHAUSTED, 429, true, null, null, 3_600_000L, LockScope.MODEL, false, false,
                false, false, null);
        ConnectionCooldowns.Outcome o = cooldowns.onFailure(c.id(), quota, null, null);
        assertThat(o.absorbed()).isFalse();
        assertThat(remaining(c)).isEqualTo(3_600_000);
        assertThat(state(c).backoffLevel()).isEqualTo(1);
    }

    @Test
    void concurrencyLimitCoolsOneSecondAndLeavesBackoffUnchanged_CC4() {
        Connection c = apiKey(false);
        failAndExpire(c, rateLimit());
        Verdict busy = new Verdict(FailureReason.CONCURRENCY_LIMITED, 429, true, null, null, 1_000L, LockScope.CONNECTION, false,
                false, true, false, null);
        assertThat(cooldowns.onFailure(c.id(), busy, "并发数过高", null).cooledMs()).isEqualTo(ConnectionCooldowns.CONCURRENCY_LIMIT_COOLDOWN_MS)
                .isEqualTo(1_000);
        assertThat(state(c).backoffLevel()).isEqualTo(1);
    }

    @Test
    void concurrencyLimitFollowsTheHint_CC4() {
        Connection c = apiKey(false);
        Verdict busy = Verdict.of(FailureReason.CONCURRENCY_LIMITED, 429, true, LockScope.CONNECTION).withHint(2_500, HintSource.HEADER);
        assertThat(cooldowns.onFailure(c.id(), busy, null, null).cooledMs()).isEqualTo(2_500);
        assertThat(state(c).backoffLevel()).isZero();
    }

    @Test
    void bannedAndCreditsExhaustedAreTerminalAndNeverOverwritten_CC6() {
        Connection banned = apiKey(false);
        Verdict ban = new Verdict(FailureReason.BANNED, 403, true, null, null, 31_536_000_000L, LockScope.CONNECTION, true, false,
                false, false, null);
        assertThat(cooldowns.onFailure(banned.id(), ban, "account deactivated", null).testStatus()).isEqualTo("banned");
        assertThat(state(banned).rateLimitedUntil()).isNull();
        ConnectionCooldowns.Outcome later = cooldowns.onFailure(banned.id(), rateLimit(), null, null);
        assertThat(later.absorbed()).isTrue();
        assertThat(state(banned).testStatus()).isEqualTo("banned");

        Connection broke = apiKey(false);
        Verdict credits = new Verdict(FailureReason.CREDITS_EXHAUSTED, 402, true, null, null, null, LockScope.CONNECTION, false, true,
                false, false, null);
        assertThat(cooldowns.onFailure(broke.id(), credits, null, null).testStatus()).isEqualTo("credits_exhausted");
        cooldowns.onSuccess(store.find(broke.id()).orElseThrow());
        assertThat(state(broke).testStatus()).isEqualTo("credits_exhausted");
    }

    @Test
    void thirdRequestRejectedWithinAnHourBans_firstTwoCoolFiveAndFifteenMinutes_CC6() {
        Connection c = oauth();
        Verdict rejected = Verdict.of(FailureReason.REQUEST_REJECTED, 403, true, LockScope.CONNECTION);
        assertThat(failAndExpire(c, rejected)).isEqualTo(300_000);
        assertThat(failAndExpire(c, rejected)).isEqualTo(900_000);
        assertThat(cooldowns.onFailure(c.id(), rejected, "Request not allowed", null).testStatus()).isEqualTo("banned");
    }

    @Test
    void clearingTheCooldownsAlsoClearsTheRequestRejectedStreak_CC6() {
        // notes §3.17: the cooldown manager's clear forgets the streak, so the next refusal is a first one again
        Connection c = oauth();
        Verdict rejected = Verdict.of(FailureReason.REQUEST_REJECTED, 403, true, LockScope.CONNECTION);
        failAndExpire(c, rejected);
        failAndExpire(c, rejected);
        cooldowns.clear(c.id());
        assertThat(cooldowns.onFailure(c.id(), rejected, "Request not allowed", null).cooledMs()).isEqualTo(300_000);
        assertThat(state(c).testStatus()).isEqualTo("unavailable");
    }

    @Test
    void requestRejectedStreakRestartsAfterTheHour_CC6() {
        Connection c = oauth();
        Verdict rejected = Verdict.of(FailureReason.REQUEST_REJECTED, 403, true, LockScope.CONNECTION);
        failAndExpire(c, rejected);
        failAndExpire(c, rejected);
        clock.advance(Duration.ofHours(1));
        assertThat(cooldowns.onFailure(c.id(), rejected, null, null).cooledMs()).isEqualTo(300_000);
        assertThat(state(c).testStatus()).isEqualTo("unavailable");
    }

    @Test
    void expiredBecomesTerminalAfterThreeRetriesWithBackoff_CC6() {
        Connection c = oauth();
        Verdict expired = Verdict.of(FailureReason.EXPIRED, 401, true, LockScope.CONNECTION);
        assertThat(failAndExpire(c, expired)).isEqualTo(5_000);
        assertThat(failAndExpire(c, expired)).isEqualTo(10_000);
        assertThat(failAndExpire(c, expired)).isEqualTo(20_000);
        assertThat(state(c).expiredRetries()).isEqualTo(ConnectionCooldowns.EXPIRED_RETRY_MAX).isEqualTo(3);
        assertThat(cooldowns.onFailure(c.id(), expired, null, null).testStatus()).isEqualTo("expired");
    }

    @Test
    void successClearsEveryErrorField_CC7() {
        Connection c = apiKey(false);
        failAndExpire(c, rateLimit());
        failAndExpire(c, rateLimit());
        assertThat(state(c).backoffLevel()).isEqualTo(2);
        cooldowns.onSuccess(store.find(c.id()).orElseThrow());
        assertThat(state(c)).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void disableCoolingRecordsButNeverCools_CC9() {
        Connection c = apiKey(true);
        ConnectionCooldowns.Outcome o = cooldowns.onFailure(c.id(), rateLimit().withHint(7_000, HintSource.HEADER), "HTTP 429", "rate_limited");
        assertThat(o.cooledMs()).isZero();
        ConnectionState s = state(c);
        assertThat(s.rateLimitedUntil()).isNull();
        assertThat(s.testStatus()).isEqualTo("active");
        assertThat(s.lastError()).isEqualTo("HTTP 429");
        assertThat(s.lastErrorType()).isEqualTo("rate_limit_exceeded");
        assertThat(s.errorCode()).isEqualTo("rate_limited");
    }

    @Test
    void clearLeavesTerminalStatesAlone_CC8() {
        Connection cooling = apiKey(false);
        Connection clean = apiKey(false);
        Connection banned = apiKey(false);
        cooldowns.onFailure(cooling.id(), rateLimit(), null, null);
        cooldowns.onFailure(banned.id(), new Verdict(FailureReason.BANNED, 403, true, null, null, null, LockScope.CONNECTION, true,
                false, false, false, null), null, null);
        assertThat(cooldowns.clear(cooling.id())).isEqualTo(ClearResult.CLEARED);
        assertThat(cooldowns.clear(clean.id())).isEqualTo(ClearResult.UNCHANGED);
        assertThat(cooldowns.clear(banned.id())).isEqualTo(ClearResult.SKIPPED_TERMINAL);
        assertThat(state(cooling)).isEqualTo(ConnectionState.ACTIVE);
        assertThat(state(banned).testStatus()).isEqualTo("banned");
    }

    @Test
    void reactivateBringsOnlyATerminalConnectionBackToActive_issue27() {
        Connection cooling = apiKey(false);
        Connection broke = apiKey(false);
        cooldowns.onFailure(cooling.id(), rateLimit(), null, null);
        cooldowns.onFailure(broke.id(), Verdict.builder(FailureReason.CREDITS_EXHAUSTED, 402, LockScope.CONNECTION).creditsExhausted().build(),
                null, null);
        assertThat(state(broke).testStatus()).isEqualTo("credits_exhausted");

        assertThat(cooldowns.reactivate(cooling.id())).isFalse();
        assertThat(cooldowns.reactivate("no-such-connection")).isFalse();
        assertThat(cooldowns.reactivate(broke.id())).isTrue();

        assertThat(state(broke)).isEqualTo(ConnectionState.ACTIVE);
        assertThat(state(cooling).testStatus()).isNotEqualTo("active");
        assertThat(cooldowns.reactivate(broke.id())).isFalse();
    }

    private long classifiedCooldown(String body) {
        Connection c = apiKey(false);
        Verdict v = new FailureClassifier(clock, ErrorRules.NONE).classify("glm", ProviderClass.APIKEY,
                dev.sluice.api.upstream.UpstreamError.builder(new dev.sluice.api.upstream.ResponseHead(429, java.util.Map.of())).body(body).build());
        return cooldowns.onFailure(c.id(), v, null, null).cooledMs();
    }

    @Test
    void quotaTextsKeepTheirDeclaredOrAnnouncedDurations_CC2_BO5() {
        assertThat(classifiedCooldown("{\"error\":{\"message\":\"usage limit reached, try again in 3h\"}}")).isEqualTo(10_800_000);
        assertThat(classifiedCooldown("{\"error\":{\"message\":\"You've reached your usage limit. It resets in 3 days\"}}"))
                .isEqualTo(259_200_000);
        // an announced reset beats the generic guess for the kind of cap (24 h for a weekly one)
        assertThat(classifiedCooldown("{\"error\":{\"message\":\"weekly usage limit reached, try again in 2h\"}}"))
                .isEqualTo(7_200_000);
        assertThat(classifiedCooldown("{\"error\":{\"message\":\"weekly usage limit reached\"}}")).isEqualTo(86_400_000);
        assertThat(classifiedCooldown("{\"error\":{\"message\":\"usage limit reached\"}}")).isEqualTo(3_600_000);
        // a plain rate limit's body-text hint stays under maxCooldownMs
        assertThat(classifiedCooldown("{\"error\":{\"message\":\"Rate limit exceeded, please retry after 2700s\"}}"))
                .isEqualTo(1_800_000);
    }

    @Test
    void refusalsOfOneBurstAreOneRefusal_CC3_CC6() throws Exception {
        Connection c = oauth();
        Verdict rejected = Verdict.of(FailureReason.REQUEST_REJECTED, 403, true, LockScope.CONNECTION);
        CountDownLatch start = new CountDownLatch(1);
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 3; i++) {
                pool.submit(() -> {
                    start.await();
                    return cooldowns.onFailure(c.id(), rejected, "Request not allowed", null);
                });
            }
            start.countDown();
        }
        assertThat(state(c).testStatus()).isEqualTo("unavailable");
        assertThat(remaining(c)).isEqualTo(300_000);
    }

    private ConnectionStatus status(Connection c) {
        return ConnectionStatus.of(state(c), clock.millis());
    }

    @Test
    void everyStatusTheCooldownsWriteIsALegalMove_CC3_CC6_CC7_CC8_EB2() {
        Connection c = oauth();
        Verdict expired = Verdict.of(FailureReason.EXPIRED, 401, true, LockScope.CONNECTION);
        Verdict quota = new Verdict(FailureReason.QUOTA_EXHAUSTED, 429, true, null, null, 3_600_000L, LockScope.MODEL, false, false,
                false, false, null);
        List<ConnectionStatus> seen = new ArrayList<>(List.of(status(c)));
        cooldowns.onFailure(c.id(), rateLimit(), null, null); // active -> cooling
        seen.add(status(c));
        cooldowns.onFailure(c.id(), quota, null, null); // a later end lengthens it
        seen.add(status(c));
        cooldowns.coolUntil(c.id(), clock.millis() + 60_000, FailureReason.RATE_LIMIT_EXCEEDED, null); // shorter: refused
        seen.add(status(c));
        cooldowns.onSuccess(store.find(c.id()).orElseThrow()); // cooling -> active
        seen.add(status(c));
        cooldowns.coolUntil(c.id(), clock.millis() + 60_000, FailureReason.RATE_LIMIT_EXCEEDED, null); // EB-2 sibling cooldown
        seen.add(status(c));
        assertThat(cooldowns.clear(c.id())).isEqualTo(ClearResult.CLEARED); // cooling -> active
        seen.add(status(c));
        for (int retry = 0; retry < ConnectionCooldowns.EXPIRED_RETRY_MAX; retry++) {
            cooldowns.onFailure(c.id(), expired, null, null); // each retry cools
            seen.add(status(c));
            clock.advance(Duration.ofMillis(state(c).rateLimitedUntil() - clock.millis())); // ran out: active again
            seen.add(status(c));
        }
        cooldowns.onFailure(c.id(), expired, null, null); // the retries are used up: terminal
        seen.add(status(c));
        cooldowns.onFailure(c.id(), rateLimit(), null, null);
        cooldowns.coolUntil(c.id(), clock.millis() + 60_000, FailureReason.RATE_LIMIT_EXCEEDED, null);
        cooldowns.onSuccess(store.find(c.id()).orElseThrow());
        cooldowns.clear(c.id());
        seen.add(status(c));

        assertThat(seen).extracting(ConnectionStatus::phase).containsExactly(ConnectionStatus.Phase.ACTIVE,
                ConnectionStatus.Phase.COOLING_DOWN, ConnectionStatus.Phase.COOLING_DOWN, ConnectionStatus.Phase.COOLING_DOWN,
                ConnectionStatus.Phase.ACTIVE, ConnectionStatus.Phase.COOLING_DOWN, ConnectionStatus.Phase.ACTIVE,
                ConnectionStatus.Phase.COOLING_DOWN, ConnectionStatus.Phase.ACTIVE, ConnectionStatus.Phase.COOLING_DOWN,
                ConnectionStatus.Phase.ACTIVE, ConnectionStatus.Phase.COOLING_DOWN, ConnectionStatus.Phase.ACTIVE,
                ConnectionStatus.Phase.TERMINAL, ConnectionStatus.Phase.TERMINAL);
        assertThat(seen.get(seen.size() - 1)).isEqualTo(ConnectionStatus.Terminal.EXPIRED);
        for (int i = 1; i < seen.size(); i++) {
            ConnectionStatus from = seen.get(i - 1);
            ConnectionStatus to = seen.get(i);
            assertThat(from.equals(to) || from.canMoveTo(to)).as("%s -> %s", from, to).isTrue();
        }
    }

    @ParameterizedTest
    @CsvSource({"0,3000", "1,6000", "5,96000", "9,96000"})
    void backoffFormula_CC2(int level, long expected) {
        assertThat(ConnectionCooldowns.backoff(ResilienceSettings.DEFAULTS.connectionCooldown().apikey(), level)).isEqualTo(expected);
    }
}
