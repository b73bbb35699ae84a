package dev.sluice.runtime;

import dev.sluice.runtime.session.Sessions;
import dev.sluice.runtime.settings.GeneralSettingsService;
import dev.sluice.runtime.settings.ResilienceSettingsService;
import dev.sluice.runtime.store.ChangeFeed;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcApiKeyStore;
import dev.sluice.runtime.store.JdbcComboStore;
import dev.sluice.runtime.store.JdbcConnectionStore;
import dev.sluice.runtime.store.JdbcSettingsStore;

/**
 * Wiring: every in-memory copy of durable records follows the change notifications of a shared
 * database (NF-6) — connections, keys, combos, both settings documents, the model catalog's overrides, leases
 * and session pins.
 * Breaker rows are not followed: a breaker's live state is each instance's own (its row is what a
 * restart restores).
 */
final class ChangeFollowers {

    private ChangeFollowers() {
    }

    /**
     * Subscribes everything and starts listening (PostgreSQL; with SQLite the feed stays idle).
     *
     * @return the running feed, to close at shutdown
     */
    static ChangeFeed start(Database db, JdbcConnectionStore connections, JdbcApiKeyStore keys, JdbcComboStore combos,
            ResilienceSettingsService resilience, GeneralSettingsService general, Sessions sessions,
            dev.sluice.runtime.catalog.ModelCatalog models) {
        ChangeFeed feed = new ChangeFeed(db);
        connections.follow(feed);
        keys.follow(feed);
        combos.follow(feed);
        feed.subscribe(JdbcSettingsStore.TOPIC, key -> {
            if (key == null || key.equals(ResilienceSettingsService.STORE_KEY)) {
                resilience.reload();
            }
            if (key == null || key.equals(GeneralSettingsService.STORE_KEY)) {
                general.reload();
            }
            if (key == null || key.equals(dev.sluice.runtime.catalog.ModelCatalog.STORE_KEY)) {
                models.reload();
            }
        });
        sessions.leases().follow(feed);
        sessions.pins().follow(feed);
        feed.start();
        return feed;
    }
}
