package dev.sluice.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.security.AdminKeys;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.settings.GeneralSettingsService;
import dev.sluice.runtime.settings.ResilienceSettingsLayers;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcApiKeyStore;
import dev.sluice.runtime.store.JdbcComboStore;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.JdbcProxyLogStore;
import dev.sluice.runtime.store.JdbcSettingsStore;
import dev.sluice.runtime.store.SealedCredentials;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.InstantSource;

/**
 * The composition root's storage (issue 35): the database, the credential box, the stores on them
 * and the two settings documents.
 *
 * @param db the database (SQLite, or PostgreSQL shared by several instances)
 * @param connections provider connections, credentials sealed by the box
 * @param keys client API keys
 * @param settings the settings table
 * @param proxyLogs attempts kept for the operator
 * @param combos the combos
 * @param adminHash the admin key's hash
 * @param resilienceSettings the resilience settings document (SPEC §18)
 * @param generalSettings the other settings ({@code /api/settings})
 */
record StorageWiring(Database db, JdbcConnectionStore connections, JdbcApiKeyStore keys, JdbcSettingsStore settings,
        JdbcProxyLogStore proxyLogs, JdbcComboStore combos, String adminHash, ResilienceSettingsService resilienceSettings,
        GeneralSettingsService generalSettings) {

    static StorageWiring open(SluiceConfig config, InstantSource clock, ObjectMapper mapper, Database db, PrintStream console) {
        if (db.shared() && config.secretKey() == null && !Files.exists(config.dataDir().resolve("secret.key"))) {
            // every instance must open the credentials the others sealed: one key, given to all
            throw new IllegalStateException("with SLUICE_DATABASE_URL every instance must use the same credential key: set"
                    + " SLUICE_SECRET_KEY (base64 of 32 bytes) on every instance, or copy one instance's secret.key into "
                    + config.dataDir());
        }
        SecretBox box = SecretBox.open(config.secretKey(), config.dataDir(), !SealedCredentials.present(db));
        JdbcSettingsStore settings = new JdbcSettingsStore(db, clock);
        String adminHash = AdminKeys.resolveHash(config.adminKey(), settings, console);
        return new StorageWiring(db, new JdbcConnectionStore(db, box, clock), new JdbcApiKeyStore(db, clock), settings, new JdbcProxyLogStore(db),
                new JdbcComboStore(db, mapper, clock), adminHash,
                new ResilienceSettingsService(ResilienceSettingsLayers.configured(config.resilience(), config.resilienceEnv()), settings,
                        ResilienceSettingsService.WARN_IN_LOG),
                new GeneralSettingsService(settings, config.emergencyFallback(), config.modelAliases(), config.sessionAffinityTtlMs()));
    }
}
