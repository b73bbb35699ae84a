package dev.sluice.runtime.resilience.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.api.rules.LockScope;
import dev.sluice.api.rules.QuotaFamily;
import dev.sluice.api.upstream.ResponseHead;
import dev.sluice.api.upstream.TransportError;
import dev.sluice.api.upstream.TransportErrorKind;
import dev.sluice.api.upstream.UpstreamError;
import dev.sluice.api.upstream.UpstreamFailure;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.resilience.breaker.BreakerState;
import dev.sluice.runtime.resilience.breaker.BreakerStore;
import dev.sluice.runtime.resilience.breaker.CircuitBreakers;
import dev.sluice.runtime.resilience.classify.AttemptFailure;
import dev.sluice.runtime.resilience.classify.ErrorRules;
import dev.sluice.runtime.resilience.classify.ErrorRulesTest;
import dev.sluice.runtime.resilience.classify.FailureClassifier;
import dev.sluice.runtime.resilience.classify.StatusRestatement;
import dev.sluice.runtime.resilience.classify.StatusRestatementTest;
import dev.sluice.runtime.resilience.classify.Verdict;
import dev.sluice.runtime.resilience.cooldown.ConnectionCooldowns;
import dev.sluice.runtime.resilience.cooldown.EgressLocks;
import dev.sluice.runtime.resilience.lockout.ModelLockouts;
import dev.sluice.runtime.resilience.lockout.QuotaFamilies;
import dev.sluice.runtime.resilience.window.ProviderCooldowns;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which mechanism a verdict reaches: the scopes stay separate (SPEC §5–§11, BO-7). */
class ResilienceEngineTest {

    @TempDir
    Path dir;
    private final TestClock clock = TestClock.at(Instant.parse("2026-01-01T00:00:00Z"));
    private final AtomicReference<ResilienceSettings> settings = new AtomicReference<>(ResilienceSettings.DEFAULTS);
    private Database db;
    private JdbcConnectionStore store;
    private CircuitBreakers breakers;
    private ModelLockouts lockouts;
    private ResilienceEngine engine;
    private Connection conn;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
        breakers = CircuitBreakers.local(clock, settings::get, BreakerStore.none());
        lockouts = ModelLockouts.local(clock, settings::get);
        engine = new ResilienceEngine(new FailureClassifier(clock, ErrorRules.NONE), settings::get,
                ResilienceEngine.standard(ConnectionCooldowns.local(store, clock, settings::get), ProviderCooldowns.local(clock, settings::get), null, lockouts, breakers),
                new QuotaFamilies(List.of(new QuotaFamily("codexish", "gpt-5", List.of("gpt-5*")))), new StatusRestatement(List.of()), null);
        conn = store.create(new NewConnection("codexish", "k", ProviderClass.APIKEY, "sk-1", null, null, 1, true, null, null, false,
                null, null, null));
    }

    @AfterEach
    void close() {
        db.close();
    }

    private void lockoutOn() {
        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        settings.set(ResilienceSettings.of(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(), d.streamStallCooldown(),
                new ResilienceSettings.ModelLockoutSettings(true, d.modelLockout().errorCodes(), 120_000, 1_800_000, 10, true)));
    }

    private Candidate candidate(String model) {
        Connection fresh = store.find(conn.id()).orElseThrow();
        return new Candidate("codexish", ProviderClass.APIKEY, fresh, new BreakerKey("codexish", "127.0.0.1:1"), model,
                engine.familyOf("codexish", model));
    }

    private ResilienceEngine.Decision fail(String model, UpstreamFailure failure) {
        Candidate c = candidate(model);
        return engine.afterFailure(c, engine.acquire(c), engine.classify(c, failure), "boom", null);
    }

    private static UpstreamError error(int status, String body) {
        return UpstreamError.builder(new ResponseHead(status, Map.of())).body(body).build();
    }

    private ConnectionState state() {
        return store.find(conn.id()).orElseThrow().state();
    }

    @Test
    void theGatewaysOwnTimerCountsForNoMechanismHoweverOftenItFires_BO7() {
        lockoutOn();
        AttemptFailure timer = new AttemptFailure.GatewayTimer(AttemptFailure.Timer.EXECUTION_BOUND, 600_000);
        for (int i = 0; i < 20; i++) {
            Candidate c = candidate("gpt-5-mini");
            Verdict v = engine.classify(c, timer);
            assertThat(v.requestScoped()).isTrue();
            assertThat(v.countsForBreaker()).isFalse();
            assertThat(v.status()).isEqualTo(504);
            assertThat(engine.afterFailure(c, engine.acquire(c), v, timer.describe(), null)).isEqualTo(ResilienceEngine.Decision.TRY_NEXT);
            clock.advance(java.time.Duration.ofMillis(CircuitBreakers.DEDUPE_WINDOW_MS));
        }
        assertThat(breakers.views()).isEmpty();
        assertThat(state()).isEqualTo(ConnectionState.ACTIVE);
        assertThat(lockouts.activeCount()).isZero();
        assertThat(engine.exclusion(candidate("gpt-5-mini"), clock.millis())).isNull();
        // the same number of upstream timeouts does open the breaker: the kind, not the status, decides
        for (int i = 0; i < 20; i++) {
            fail("gpt-5-mini", new TransportError(TransportErrorKind.TIMEOUT, "read timed out"));
            clock.advance(java.time.Duration.ofMillis(CircuitBreakers.DEDUPE_WINDOW_MS));
        }
        assertThat(breakers.view(new BreakerKey("codexish", "127.0.0.1:1"), ProviderClass.APIKEY).state()).isEqualTo(BreakerState.OPEN);
    }

    @Test
    void withLockoutOffARateLimitCoolsTheConnection_CC2_ML2() {
        assertThat(fail("gpt-5-mini", error(429, "{\"error\":{\"message\":\"Rate limit reached\"}}"))).isEqualTo(ResilienceEngine.Decision.TRY_NEXT);
        assertThat(state().testStatus()).isEqualTo("unavailable");
        assertThat(lockouts.activeCount()).isZero();
    }

    @Test
    void withLockoutOnARateLimitLocksTheQuotaFamilyAndLeavesTheConnectionActive_ML1() {
        lockoutOn();
        fail("gpt-5-mini", error(429, "{\"error\":{\"message\":\"Rate limit reached\"}}"));
        assertThat(state()).isEqualTo(ConnectionState.ACTIVE);
        assertThat(engine.exclusion(candidate("gpt-5-codex"), clock.millis()))
                .isEqualTo(new Exclusion(Exclusion.Reason.MODEL_LOCKOUT, 120_000, FailureReason.RATE_LIMIT_EXCEEDED));
        assertThat(engine.exclusion(candidate("o3"), clock.millis())).isNull();
    }

    @Test
    void a503CoolsTheConnectionOnlyWhenServiceUnavailableCooldownIsOn_issue32() {
        fail("o3", error(503, "Service Unavailable"));
        assertThat(state()).as("off by default: the breaker's business").isEqualTo(ConnectionState.ACTIVE);

        ResilienceSettings d = ResilienceSettings.DEFAULTS;
        settings.set(new ResilienceSettings(d.circuitBreaker(), d.providerCooldown(), d.connectionCooldown(), d.streamStallCooldown(),
                d.modelLockout(), d.comboCooldownWait(), d.requestQueue(), d.quotaShareConcurrencyLimit(), d.streamRecovery(),
                new ResilienceSettings.ServiceUnavailableCooldown(true)));
        clock.advance(java.time.Duration.ofMillis(CircuitBreakers.DEDUPE_WINDOW_MS));
        fail("o3", error(500, "Internal Server Error"));
        assertThat(state()).as("only a 503").isEqualTo(ConnectionState.ACTIVE);
        clock.advance(java.time.Duration.ofMillis(CircuitBreakers.DEDUPE_WINDOW_MS));
        assertThat(fail("o3", error(503, "Service Unavailable"))).isEqualTo(ResilienceEngine.Decision.TRY_NEXT);
        assertThat(state().testStatus()).isEqualTo("unavailable");
        assertThat(state().rateLimitedUntil()).isEqualTo(clock.millis() + d.connectionCooldown().apikey().baseCooldownMs());
        assertThat(state().lastErrorType()).isEqualTo("server_error");
        assertThat(breakers.view(new BreakerKey("codexish", "127.0.0.1:1"), ProviderClass.APIKEY).failureCount()).isEqualTo(3);
    }

    @Test
    void serverErrorsCountForTheBreakerButNeverCoolTheConnection_CB3() {
        fail("o3", error(503, "Service Unavailable"));
        clock.advance(java.time.Duration.ofMillis(CircuitBreakers.DEDUPE_WINDOW_MS));
        fail("o3", new TransportError(TransportErrorKind.CONNECT_FAILED, "refused"));
        assertThat(state()).isEqualTo(ConnectionState.ACTIVE);
        assertThat(breakers.view(new BreakerKey("codexish", "127.0.0.1:1"), ProviderClass.APIKEY).failureCount()).isEqualTo(2);
    }

    @Test
    void anAccountVerdictOnA5xxNeverCountsForTheBreaker_CB3() {
        fail("o3", error(503, "{\"error\":{\"message\":\"Insufficient balance, please recharge\"}}"));
        assertThat(breakers.views()).isEmpty();
        assertThat(state().testStatus()).isEqualTo("credits_exhausted");
    }

    @Test
    void accountErrorsNeverCountForTheBreaker_CB3() {
        fail("o3", error(401, "{\"error\":{\"message\":\"Incorrect API key provided\"}}"));
        assertThat(breakers.view(new BreakerKey("codexish", "127.0.0.1:1"), ProviderClass.APIKEY).failureCount()).isZero();
        assertThat(state().lastErrorType()).isEqualTo(FailureReason.AUTH_ERROR.wireName());
    }

    @Test
    void requestScopedFailuresTouchNothing_BO7() {
        lockoutOn();
        assertThat(fail("o3", error(400, "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens\"}}")))
                .isEqualTo(ResilienceEngine.Decision.GIVE_UP);
        assertThat(state()).isEqualTo(ConnectionState.ACTIVE);
        assertThat(lockouts.activeCount()).isZero();
        assertThat(breakers.views()).isEmpty();
    }

    @Test
    void successClearsTheConnection_CC7() {
        fail("o3", error(429, "{\"error\":{\"message\":\"Rate limit reached\"}}"));
        assertThat(state().testStatus()).isEqualTo("unavailable");
        clock.advance(java.time.Duration.ofSeconds(3));
        engine.afterSuccess(candidate("o3"));
        assertThat(state()).isEqualTo(ConnectionState.ACTIVE);
    }

    @Test
    void successDecaysTheLockoutFailureCount_ML3() {
        lockoutOn();
        fail("o3", error(503, "overloaded"));
        assertThat(lockouts.active()).singleElement().satisfies(l -> assertThat(l.failureCount()).isEqualTo(1));
        engine.afterSuccess(candidate("o3"));
        assertThat(lockouts.active()).isEmpty();
        assertThat(engine.exclusion(candidate("o3"), clock.millis())).isNull();
    }

    @Test
    void quotaFamiliesMatchPrefixesCaseInsensitively_ML1() {
        QuotaFamily f = new QuotaFamily("p", "gpt-5", List.of("gpt-5*", "codex-mini"));
        assertThat(f.matches("GPT-5-mini")).isTrue();
        assertThat(f.matches("codex-mini")).isTrue();
        assertThat(f.matches("codex-mini-2")).isFalse();
        assertThat(new QuotaFamilies(List.of(f)).familyOf("p", "o3")).isNull();
        assertThat(new QuotaFamilies(List.of(f)).familyOf("other", "gpt-5")).isNull();
    }

    // ------------------------------------------------------------------ §16: rules reach the mechanisms

    private ResilienceEngine agentrouterEngine() {
        ErrorRules rules = new ErrorRules(List.of(ErrorRulesTest.MODEL_ACCESS, ErrorRulesTest.USER_QUOTA), java.util.Set.of("agentrouter"),
                java.util.Set.of("agentrouter"), List::of, Set.of());
        return new ResilienceEngine(new FailureClassifier(clock, rules), settings::get,
                ResilienceEngine.standard(ConnectionCooldowns.local(store, clock, settings::get), ProviderCooldowns.local(clock, settings::get), null, lockouts, breakers),
                new QuotaFamilies(List.of()), new StatusRestatement(List.of(StatusRestatementTest.AGENTROUTER)), null);
    }

    private ResilienceEngine.Decision failOn(ResilienceEngine e, Connection c, String model, UpstreamError error) {
        Candidate cand = new Candidate("agentrouter", ProviderClass.APIKEY, store.find(c.id()).orElseThrow(),
                new BreakerKey("agentrouter", "127.0.0.1:2"), model, null);
        UpstreamFailure restated = e.restate(cand, error, clock.millis()).failure();
        return e.afterFailure(cand, e.acquire(cand), e.classify(cand, restated), "boom", null);
    }

    private Connection agentrouterKey(boolean disableCooling) {
        return store.create(new NewConnection("agentrouter", "ar", ProviderClass.APIKEY, "sk-ar", null, null, 1, true, null, null,
                disableCooling, null, null, null));
    }

    @Test
    void aHonouredConnectionQuotaRuleCoolsTheConnectionTransientlyEvenWithLockoutOn_ER3() {
        lockoutOn();
        Connection ar = agentrouterKey(false);
        failOn(agentrouterEngine(), ar, "claude-sonnet-4-5", error(403, "{\"error\":{\"message\":\"用户额度不足\"}}"));
        ConnectionState s = store.find(ar.id()).orElseThrow().state();
        assertThat(s.testStatus()).isEqualTo("unavailable");
        assertThat(s.rateLimitedUntil() - clock.millis()).isEqualTo(3_000);
        assertThat(s.lastErrorType()).isEqualTo("quota_exhausted");
        assertThat(lockouts.activeCount()).isZero();
    }

    @Test
    void disableCoolingConnectionsFallBackToTheModelLock_ER3() {
        lockoutOn();
        Connection ar = agentrouterKey(true);
        failOn(agentrouterEngine(), ar, "claude-sonnet-4-5", error(403, "{\"error\":{\"message\":\"用户额度不足\"}}"));
        assertThat(store.find(ar.id()).orElseThrow().state().rateLimitedUntil()).isNull();
        assertThat(lockouts.active()).singleElement().satisfies(l -> {
            assertThat(l.model()).isEqualTo("claude-sonnet-4-5");
            assertThat(l.reason()).isEqualTo(FailureReason.QUOTA_EXHAUSTED);
        });
    }

    @Test
    void modelAccessDeniedLocksOnlyThatModelForTheClampedSixHoursAsForbidden_ER4() {
        lockoutOn();
        Connection ar = agentrouterKey(false);
        failOn(agentrouterEngine(), ar, "claude-opus-4-1", error(403, "{\"error\":{\"message\":\"无权访问模型\"}}"));
        assertThat(lockouts.active()).singleElement().satisfies(l -> {
            assertThat(l.model()).isEqualTo("claude-opus-4-1");
            assertThat(l.reason()).isEqualTo(FailureReason.FORBIDDEN);
            // 6 h declared, clamped to modelLockout.maxCooldownMs
            assertThat(l.expiresAt() - clock.millis()).isEqualTo(1_800_000);
        });
        assertThat(store.find(ar.id()).orElseThrow().state()).isEqualTo(ConnectionState.ACTIVE);
        assertThat(lockouts.blocking("agentrouter", ar.id(), "claude-sonnet-4-5", null)).isNull();
    }

    @Test
    void anEgressFamily429CoolsTheConnectionEvenWithLockoutOn_EB3() {
        lockoutOn();
        dev.sluice.api.rules.EgressBucketing hook = new dev.sluice.api.rules.EgressBucketing() {
            @Override
            public String name() {
                return "egress";
            }

            @Override
            public java.util.Set<String> providers() {
                return java.util.Set.of("codexish");
            }
        };
        ConnectionCooldowns cooldowns = ConnectionCooldowns.local(store, clock, settings::get);
        ResilienceEngine egress = new ResilienceEngine(new FailureClassifier(clock, ErrorRules.NONE), settings::get,
                ResilienceEngine.standard(cooldowns, ProviderCooldowns.local(clock, settings::get), new EgressLocks(java.util.Map.of("codexish", hook), store, new dev.sluice.runtime.store.ProxyLogStore() {
                    @Override
                    public void append(List<dev.sluice.runtime.store.ProxyLogRow> rows) {
                    }

                    @Override
                    public List<dev.sluice.runtime.store.ProxyLogRow> recent(int limit) {
                        return List.of();
                    }

                    @Override
                    public int prune(long olderThan, int maxRows) {
                        return 0;
                    }
                }, cooldowns, clock), lockouts, breakers),
                new QuotaFamilies(List.of()), new StatusRestatement(List.of()), null);
        Candidate c = candidate("o3");
        egress.afterFailure(c, egress.acquire(c), egress.classify(c, error(429, "{\"error\":{\"message\":\"Rate limit reached\"}}")), "429",
                null);
        assertThat(state().testStatus()).isEqualTo("unavailable");
        assertThat(lockouts.activeCount()).isZero();
    }
}
