/**
 * Persistence (SPEC DM-3). The rest of the runtime sees only the store interfaces
 * ({@link dev.sluice.runtime.store.ConnectionStore}, {@link dev.sluice.runtime.store.ApiKeyStore},
 * {@link dev.sluice.runtime.store.SettingsStore}, {@link dev.sluice.runtime.store.ProxyLogStore},
 * {@link dev.sluice.runtime.store.BreakerRowStore}), so that another store can replace SQLite
 * (NF-6). The SQLite implementations share one {@link dev.sluice.runtime.store.Database}: WAL
 * mode, versioned migrations applied at start-up. Breaker state is stored as plain
 * {@link dev.sluice.runtime.store.BreakerRow}s that the resilience core maps to and from its own
 * types, so the store never depends on the core it serves.
 */
package dev.sluice.runtime.store;
