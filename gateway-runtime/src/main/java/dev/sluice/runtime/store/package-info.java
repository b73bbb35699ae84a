/**
 * Persistence (SPEC DM-3). The rest of the runtime sees only the store interfaces
 * ({@link dev.sluice.runtime.store.ConnectionStore}, {@link dev.sluice.runtime.store.ApiKeyStore},
 * {@link dev.sluice.runtime.store.SettingsStore}, {@link dev.sluice.runtime.store.ProxyLogStore}),
 * so that another store can replace SQLite (NF-6). The SQLite implementations share one
 * {@link dev.sluice.runtime.store.Database}: WAL mode, versioned migrations applied at start-up.
 */
package dev.sluice.runtime.store;
