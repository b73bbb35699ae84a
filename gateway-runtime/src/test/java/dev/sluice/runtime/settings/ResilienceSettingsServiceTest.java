package dev.sluice.runtime.settings;

import static dev.sluice.runtime.settings.Trees.at;
import static dev.sluice.runtime.settings.Trees.json;
import static dev.sluice.runtime.settings.Trees.patch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.SettingsStore;
import dev.sluice.runtime.store.JdbcSettingsStore;
import dev.sluice.runtime.store.StoreException;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The effective settings: persisted operator patches over the configured layers (SE-1, SE-2, SE-4). */
class ResilienceSettingsServiceTest {

    @TempDir
    Path dir;

    private final TestClock clock = TestClock.create();
    private final List<String> warnings = new ArrayList<>();
    private Database db;
    private SettingsStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcSettingsStore(db, clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private ResilienceSettingsService service(ResilienceSettings configured) {
        return new ResilienceSettingsService(configured, store, warnings::add);
    }

    private ResilienceSettingsService service() {
        return service(ResilienceSettings.DEFAULTS);
    }

    /** A restart: the database is reopened and the service rebuilt over new configured layers. */
    private ResilienceSettingsService restart(ResilienceSettings configured) {
        db.close();
        db = Database.open(dir);
        store = new JdbcSettingsStore(db, clock);
        return service(configured);
    }

    private JsonNode persisted() {
        return json(store.get(ResilienceSettingsService.STORE_KEY).orElseThrow());
    }

    private static ResilienceSettings env(Map<String, String> env) {
        return ResilienceSettingsLayers.configured(Map.of(), env, m -> { });
    }

    // ------------------------------------------------------------------ reading

    @Test
    void withNothingPersistedTheConfiguredSettingsApply_SE2() {
        ResilienceSettings configured = env(Map.of("SLUICE_MODEL_LOCKOUT_ENABLED", "true"));
        ResilienceSettingsService s = service(configured);

        assertThat(s.get()).isEqualTo(configured);
        assertThat(s.tree()).isEqualTo(ResilienceSettingsCodec.toJson(configured));
        assertThat(at(s.tree(), "modelLockout.enabled").booleanValue()).isTrue();
        assertThat(s.accumulated()).isEmpty();
        assertThat(store.get(ResilienceSettingsService.STORE_KEY)).isEmpty();
        assertThat(warnings).isEmpty();
    }

    @Test
    void treeIsACopy_SE4() {
        ResilienceSettingsService s = service();
        ((ObjectNode) s.tree().get("modelLockout")).put("enabled", true);

        assertThat(at(s.tree(), "modelLockout.enabled").booleanValue()).isFalse();
    }

    // ------------------------------------------------------------------ deep merge (SE-4)

    @Test
    void patchMergesObjectsKeyByKey_SE4() {
        ResilienceSettingsService s = service();

        ResilienceSettings after = s.patch(json("{'modelLockout': {'enabled': true}, 'circuitBreaker': {'apikey': {'failureThreshold': 20}}}"));

        assertThat(after).isEqualTo(s.get());
        assertThat(after.modelLockout()).isEqualTo(new ResilienceSettings.ModelLockoutSettings(true, List.of(403, 404, 429, 502, 503, 504),
                120_000, 1_800_000, 10, true));
        assertThat(after.circuitBreaker().apikey()).isEqualTo(new ResilienceSettings.BreakerProfile(7, 20, 30_000, 4, 3, Map.of()));
        assertThat(after.circuitBreaker().oauth()).isEqualTo(ResilienceSettings.DEFAULTS.circuitBreaker().oauth());
        assertThat(after.providerCooldown()).isEqualTo(ResilienceSettings.DEFAULTS.providerCooldown());
        assertThat(s.tree()).isEqualTo(ResilienceSettingsCodec.toJson(after));
    }

    @Test
    void successivePatchesAccumulate_SE4() {
        ResilienceSettingsService s = service();
        s.patch(patch("connectionCooldown.apikey.baseCooldownMs", 4_000));
        s.patch(patch("connectionCooldown.apikey.maxBackoffSteps", 6));
        s.patch(patch("streamStallCooldown.enabled", true));

        assertThat(s.get().connectionCooldown().apikey()).isEqualTo(new ResilienceSettings.CooldownProfile(4_000, 6, 1_800_000));
        assertThat(s.get().streamStallCooldown().enabled()).isTrue();
        assertThat(s.accumulated()).isEqualTo(json(
                "{'connectionCooldown': {'apikey': {'baseCooldownMs': 4000, 'maxBackoffSteps': 6}}, 'streamStallCooldown': {'enabled': true}}"));
    }

    @Test
    void arraysAreReplacedWholeAndDeduplicated_SE4_ML2() {
        ResilienceSettingsService s = service();

        s.patch(patch("modelLockout.errorCodes", List.of(429)));
        assertThat(s.get().modelLockout().errorCodes()).containsExactly(429);

        s.patch(patch("modelLockout.errorCodes", List.of(502, 503, 502)));
        assertThat(s.get().modelLockout().errorCodes()).containsExactly(502, 503);
        assertThat(at(s.tree(), "modelLockout.errorCodes")).isEqualTo(json("[502, 503]"));
    }

    @Test
    void cooldownByKindIsAnObjectAndMergesKeyByKey_SE4_CB4() {
        ResilienceSettingsService s = service();
        s.patch(patch("circuitBreaker.oauth.cooldownByKind.rate_limit_exceeded", 60_000));
        s.patch(patch("circuitBreaker.oauth.cooldownByKind.quota_exhausted", 3_600_000));

        assertThat(s.get().circuitBreaker().oauth().cooldownByKind())
                .isEqualTo(Map.of("rate_limit_exceeded", 60_000L, "quota_exhausted", 3_600_000L));

        s.patch(patch("circuitBreaker.oauth.cooldownByKind.rate_limit_exceeded", null));
        assertThat(s.get().circuitBreaker().oauth().cooldownByKind()).isEqualTo(Map.of("quota_exhausted", 3_600_000L));
    }

    @Test
    void nullRevertsAKeyToTheConfiguredValue_SE4() {
        ResilienceSettingsService s = service(env(Map.of("SLUICE_PROVIDER_COOLDOWN_ENABLED", "true")));
        s.patch(json("{'providerCooldown': {'enabled': false, 'minRetryCooldownMs': 1000}}"));
        assertThat(s.get().providerCooldown().enabled()).isFalse();

        s.patch(json("{'providerCooldown': {'enabled': null}}"));

        assertThat(s.get().providerCooldown().enabled()).as("the environment's value again").isTrue();
        assertThat(s.get().providerCooldown().minRetryCooldownMs()).isEqualTo(1_000);
        assertThat(persisted()).isEqualTo(json("{'providerCooldown': {'minRetryCooldownMs': 1000}}"));

        s.patch(json("{'providerCooldown': null}"));
        assertThat(s.get().providerCooldown().minRetryCooldownMs()).isEqualTo(5_000);
        assertThat(persisted()).isEqualTo(json("{}"));
    }

    @Test
    void anEmptyPatchChangesNothing_SE4() {
        ResilienceSettingsService s = service();

        assertThat(s.patch(json("{}"))).isEqualTo(ResilienceSettings.DEFAULTS);
        assertThat(s.patch(json("{'modelLockout': {}}"))).isEqualTo(ResilienceSettings.DEFAULTS);
        assertThat(persisted()).isEqualTo(json("{}"));
    }

    @Test
    void theSupplierViewSeesAPatchAtOnce_SE1() {
        ResilienceSettingsService s = service();
        Supplier<ResilienceSettings> view = s;
        ResilienceSettings before = view.get();

        s.patch(patch("modelLockout.enabled", true));

        assertThat(before.modelLockout().enabled()).isFalse();
        assertThat(view.get().modelLockout().enabled()).isTrue();
    }

    // ------------------------------------------------------------------ validation: nothing changes on error

    @Test
    void anInvalidPatchIsRefusedNamingThePathAndChangesNothing_SE1() {
        ResilienceSettingsService s = service();
        s.patch(patch("modelLockout.enabled", true));
        ObjectNode treeBefore = s.tree();
        JsonNode persistedBefore = persisted();

        assertThatThrownBy(() -> s.patch(json("{'modelLockout': {'enabled': false, 'maxCooldownMs': 1}}")))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.maxCooldownMs"))
                .hasMessage("'modelLockout.maxCooldownMs' must be between 5000 and 3600000, got 1.");

        assertThat(s.get().modelLockout().enabled()).isTrue();
        assertThat(s.tree()).isEqualTo(treeBefore);
        assertThat(persisted()).isEqualTo(persistedBefore);
        assertThat(s.accumulated()).isEqualTo(persistedBefore);
    }

    @Test
    void wrongTypesAndUnknownKeysAreRefusedNamingThePath_SE4() {
        ResilienceSettingsService s = service();

        assertThatThrownBy(() -> s.patch(patch("modelLockout.enabled", "yes")))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.enabled"));
        assertThatThrownBy(() -> s.patch(patch("modelLockout", 5)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout"));
        assertThatThrownBy(() -> s.patch(patch("streamWatchdog.enabled", 10)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("streamWatchdog"));
        assertThatThrownBy(() -> s.patch(patch("streamWatchdog", null)))
                .as("an unknown key is refused even when its value is null")
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("streamWatchdog"));
        assertThatThrownBy(() -> s.patch(patch("streamRecovery.enabled", true)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("streamRecovery.enabled"));
        assertThatThrownBy(() -> s.patch(patch("circuitBreaker.apikey.cooldownByKind.bogus", null)))
                .isInstanceOfSatisfying(SettingsException.class,
                        e -> assertThat(e.path()).isEqualTo("circuitBreaker.apikey.cooldownByKind.bogus"));
        assertThatThrownBy(() -> s.patch(patch("connectionCooldown.local.baseCooldownMs", 1000)))
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("connectionCooldown.local"));
        assertThat(s.get()).isEqualTo(ResilienceSettings.DEFAULTS);
        assertThat(store.get(ResilienceSettingsService.STORE_KEY)).isEmpty();
    }

    @Test
    void aBodyThatIsNotAnObjectIsRefused_SE4() {
        ResilienceSettingsService s = service();

        for (JsonNode bad : new JsonNode[] {null, json("[]"), json("null"), json("5")}) {
            assertThatThrownBy(() -> s.patch(bad))
                    .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isNull())
                    .hasMessage("The body must be a JSON object of resilience settings to change.");
        }
    }

    @Test
    void crossFieldRulesApplyToThePatchedTreeAsAWhole_CB2_ML2() {
        ResilienceSettingsService s = service();

        assertThatThrownBy(() -> s.patch(patch("circuitBreaker.apikey.failureThreshold", 5)))
                .isInstanceOfSatisfying(SettingsException.class,
                        e -> assertThat(e.path()).isEqualTo("circuitBreaker.apikey.degradationThreshold"))
                .hasMessage("'circuitBreaker.apikey.degradationThreshold' must be ≤ failureThreshold − 1 (4), got 7.");
        s.patch(patch("modelLockout.maxCooldownMs", 300_000));
        assertThatThrownBy(() -> s.patch(patch("modelLockout.baseCooldownMs", 600_000)))
                .as("raising the base above an earlier patched cap")
                .isInstanceOfSatisfying(SettingsException.class, e -> assertThat(e.path()).isEqualTo("modelLockout.maxCooldownMs"))
                .hasMessage("'modelLockout.maxCooldownMs' must be ≥ baseCooldownMs (600000), got 300000.");

        s.patch(json("{'circuitBreaker': {'apikey': {'failureThreshold': 5, 'degradationThreshold': 4}}}"));
        assertThat(s.get().circuitBreaker().apikey().failureThreshold()).isEqualTo(5);
        assertThat(s.get().circuitBreaker().apikey().degradationThreshold()).isEqualTo(4);
    }

    @Test
    void aStoreFailureChangesNothing_SE1() {
        SettingsStore failing = new SettingsStore() {
            @Override
            public Optional<String> get(String key) {
                return Optional.empty();
            }

            @Override
            public void put(String key, String json) {
                throw new StoreException("disk full", null);
            }
        };
        ResilienceSettingsService s = new ResilienceSettingsService(ResilienceSettings.DEFAULTS, failing, warnings::add);

        assertThatThrownBy(() -> s.patch(patch("modelLockout.enabled", true))).isInstanceOf(StoreException.class);
        assertThat(s.get()).isEqualTo(ResilienceSettings.DEFAULTS);
        assertThat(s.accumulated()).isEmpty();
    }

    // ------------------------------------------------------------------ persistence and precedence (SE-2)

    @Test
    void theAccumulatedPatchIsPersistedAndSurvivesARestart_SE1_SE2() {
        ResilienceSettingsService s = service();
        s.patch(patch("modelLockout.enabled", true));
        s.patch(patch("connectionCooldown.oauth.maxBackoffSteps", 4));
        ResilienceSettings patched = s.get();

        assertThat(persisted()).as("only what the operator sent, not the whole tree").isEqualTo(json(
                "{'modelLockout': {'enabled': true}, 'connectionCooldown': {'oauth': {'maxBackoffSteps': 4}}}"));

        ResilienceSettingsService after = restart(ResilienceSettings.DEFAULTS);
        assertThat(after.get()).isEqualTo(patched);
        assertThat(after.accumulated()).isEqualTo(persisted());
        assertThat(warnings).isEmpty();
    }

    @Test
    void persistedBeatsEnvironmentBeatsFileAndUnpatchedKeysFollowTheEnvironment_SE2() {
        Map<String, Object> yaml = Map.of("circuitBreaker", Map.of("apikey", Map.of("failureThreshold", "15", "resetTimeoutMs", "45000")),
                "modelLockout", Map.of("enabled", "true", "maxBackoffSteps", "3"));
        ResilienceSettings first = ResilienceSettingsLayers.configured(yaml,
                Map.of("SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD", "20", "SLUICE_MODEL_LOCKOUT_ENABLED", "false"), m -> { });
        assertThat(first.circuitBreaker().apikey().failureThreshold()).as("env beats file").isEqualTo(20);
        assertThat(first.circuitBreaker().apikey().resetTimeoutMs()).as("file beats default").isEqualTo(45_000);
        assertThat(first.modelLockout().enabled()).as("env beats file").isFalse();

        ResilienceSettingsService s = service(first);
        s.patch(json("{'circuitBreaker': {'apikey': {'failureThreshold': 30}}, 'modelLockout': {'maxBackoffSteps': 5}}"));
        assertThat(s.get().circuitBreaker().apikey().failureThreshold()).as("persisted beats env").isEqualTo(30);

        // the operator changes the environment and restarts
        ResilienceSettings second = ResilienceSettingsLayers.configured(yaml, Map.of("SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD", "25",
                "SLUICE_MODEL_LOCKOUT_ENABLED", "true", "SLUICE_CIRCUIT_BREAKER_OAUTH_RESET_MS", "90000"), m -> { });
        ResilienceSettingsService after = restart(second);

        assertThat(after.get().circuitBreaker().apikey().failureThreshold()).as("persisted still beats env").isEqualTo(30);
        assertThat(after.get().modelLockout().maxBackoffSteps()).as("persisted beats file").isEqualTo(5);
        assertThat(after.get().modelLockout().enabled()).as("never patched: follows the new env").isTrue();
        assertThat(after.get().circuitBreaker().oauth().resetTimeoutMs()).as("never patched: follows the new env").isEqualTo(90_000);
        assertThat(after.get().circuitBreaker().apikey().resetTimeoutMs()).as("never patched: file").isEqualTo(45_000);
    }

    @Test
    void anEnvironmentChangeUnderAnOlderPatchIsClampedNotFatal_SE1() {
        ResilienceSettingsService s = service();
        s.patch(patch("circuitBreaker.apikey.degradationThreshold", 10));

        ResilienceSettingsService after = restart(env(Map.of("SLUICE_CIRCUIT_BREAKER_API_KEY_THRESHOLD", "8")));

        assertThat(after.get().circuitBreaker().apikey().degradationThreshold()).isEqualTo(7);
        assertThat(warnings).containsExactly(
                "resilience setting circuitBreaker.apikey.degradationThreshold = 10 must be ≤ failureThreshold − 1 (7); clamped to 7");

        // an unrelated patch is not refused for it; a patch of either field is checked strictly
        after.patch(patch("modelLockout.enabled", true));
        assertThat(after.get().modelLockout().enabled()).isTrue();
        assertThat(after.get().circuitBreaker().apikey().degradationThreshold()).isEqualTo(7);
        assertThatThrownBy(() -> after.patch(patch("circuitBreaker.apikey.failureThreshold", 9)))
                .isInstanceOfSatisfying(SettingsException.class,
                        e -> assertThat(e.path()).isEqualTo("circuitBreaker.apikey.degradationThreshold"));
        after.patch(patch("circuitBreaker.apikey.degradationThreshold", null));
        assertThat(after.get().circuitBreaker().apikey().degradationThreshold()).as("back to the default").isEqualTo(7);
    }

    @Test
    void anUnreadablePersistedDocumentIsIgnoredWithAWarning_SE1() {
        for (String bad : List.of("not json", "[1, 2]", "\"text\"")) {
            store.put(ResilienceSettingsService.STORE_KEY, bad);
            warnings.clear();

            ResilienceSettingsService s = service();

            assertThat(s.get()).isEqualTo(ResilienceSettings.DEFAULTS);
            assertThat(warnings).containsExactly(
                    "persisted setting 'resilience' is not a JSON object; ignored until the next PATCH replaces it");
        }
        ResilienceSettingsService s = service();
        s.patch(patch("modelLockout.enabled", true));
        assertThat(persisted()).isEqualTo(json("{'modelLockout': {'enabled': true}}"));
    }

    @Test
    void badPartsOfThePersistedDocumentAreDroppedOrClampedWithAWarning_SE1() {
        store.put(ResilienceSettingsService.STORE_KEY, """
                {"modelLockout": {"enabled": true, "maxCooldownMs": 99999999, "baseCooldownMs": "soon"},
                 "streamWatchdog": {"enabled": true}}""");

        ResilienceSettingsService s = service();

        assertThat(s.get().modelLockout().enabled()).isTrue();
        assertThat(s.get().modelLockout().maxCooldownMs()).isEqualTo(3_600_000);
        assertThat(s.get().modelLockout().baseCooldownMs()).isEqualTo(120_000);
        assertThat(warnings).containsExactly(
                "persisted setting modelLockout.maxCooldownMs = 99999999 is outside 5000..3600000; clamped to 3600000",
                "persisted setting modelLockout.baseCooldownMs = \"soon\" is not an integer; ignored",
                "persisted setting streamWatchdog is not a resilience setting; ignored");
        assertThat(s.accumulated()).isEqualTo(json("{'modelLockout': {'enabled': true, 'maxCooldownMs': 3600000}}"));

        s.patch(patch("streamStallCooldown.enabled", true));
        assertThat(persisted()).as("the next PATCH stores the cleaned document").isEqualTo(json(
                "{'modelLockout': {'enabled': true, 'maxCooldownMs': 3600000}, 'streamStallCooldown': {'enabled': true}}"));
    }

    // ------------------------------------------------------------------ concurrency

    @Test
    void concurrentPatchesAreSerializedAndNoneIsLost_SE4() throws Exception {
        ResilienceSettingsService s = service();
        List<String> paths = List.of("circuitBreaker.oauth.resetTimeoutMs", "circuitBreaker.apikey.resetTimeoutMs",
                "circuitBreaker.local.resetTimeoutMs", "providerCooldown.oauth.cooldownMs", "providerCooldown.apikey.cooldownMs",
                "providerCooldown.local.cooldownMs", "providerCooldown.oauth.failureWindowMs", "providerCooldown.apikey.failureWindowMs");
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < paths.size(); i++) {
                String path = paths.get(i);
                long value = 10_000 + i;
                done.add(pool.submit(() -> {
                    start.await();
                    return s.patch(patch(path, value));
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
        }

        for (int i = 0; i < paths.size(); i++) {
            assertThat(at(s.tree(), paths.get(i)).longValue()).as(paths.get(i)).isEqualTo(10_000 + i);
            assertThat(at(persisted(), paths.get(i)).longValue()).as(paths.get(i)).isEqualTo(10_000 + i);
        }
    }
}
