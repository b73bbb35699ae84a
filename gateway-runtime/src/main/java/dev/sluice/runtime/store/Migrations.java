package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

/**
 * Versioned schema migrations, applied in order at start-up, each in its own transaction and
 * recorded in {@code schema_migrations}. Never edit a published migration: add a new one.
 */
final class Migrations {

    record Migration(int version, String description, List<String> statements) {
    }

    /** The SQLite migrations. */
    static final List<Migration> ALL = List.of(
            new Migration(1, "connections, api keys, settings, proxy logs", List.of(
                    """
                    CREATE TABLE provider_connections (
                      id TEXT PRIMARY KEY,
                      seq INTEGER NOT NULL,
                      provider TEXT NOT NULL,
                      name TEXT,
                      auth_type TEXT NOT NULL,
                      api_key_enc TEXT,
                      oauth_access_enc TEXT,
                      oauth_refresh_enc TEXT,
                      oauth_expires_at INTEGER,
                      base_url TEXT,
                      priority INTEGER NOT NULL DEFAULT 1,
                      enabled INTEGER NOT NULL DEFAULT 1,
                      max_concurrent INTEGER,
                      rate_limit_overrides TEXT,
                      rate_limit_protection INTEGER NOT NULL DEFAULT 0,
                      disable_cooling INTEGER NOT NULL DEFAULT 0,
                      provider_specific_data TEXT,
                      local_address TEXT,
                      proxy_url TEXT,
                      test_status TEXT NOT NULL DEFAULT 'active',
                      rate_limited_until INTEGER,
                      last_error TEXT,
                      last_error_type TEXT,
                      error_code TEXT,
                      backoff_level INTEGER NOT NULL DEFAULT 0,
                      expired_retries INTEGER NOT NULL DEFAULT 0,
                      created_at INTEGER NOT NULL,
                      updated_at INTEGER NOT NULL
                    )""",
                    "CREATE INDEX idx_connections_provider ON provider_connections(provider, priority, seq)",
                    """
                    CREATE TABLE api_keys (
                      id TEXT PRIMARY KEY,
                      name TEXT NOT NULL,
                      key_hash TEXT NOT NULL UNIQUE,
                      key_preview TEXT NOT NULL,
                      scopes TEXT NOT NULL,
                      allowed_connections TEXT NOT NULL,
                      created_at INTEGER NOT NULL
                    )""",
                    """
                    CREATE TABLE settings (
                      key TEXT PRIMARY KEY,
                      value TEXT NOT NULL,
                      updated_at INTEGER NOT NULL
                    )""",
                    """
                    CREATE TABLE proxy_logs (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      ts INTEGER NOT NULL,
                      request_id TEXT,
                      provider TEXT NOT NULL,
                      connection_id TEXT,
                      model TEXT,
                      status INTEGER NOT NULL,
                      latency_ms INTEGER NOT NULL,
                      error_type TEXT,
                      egress_ip TEXT
                    )""",
                    "CREATE INDEX idx_proxy_logs_ts ON proxy_logs(ts)",
                    "CREATE INDEX idx_proxy_logs_connection ON proxy_logs(connection_id, ts)")),
            new Migration(2, "provider circuit breakers", List.of(
                    """
                    CREATE TABLE domain_circuit_breakers (
                      key TEXT PRIMARY KEY,
                      provider TEXT NOT NULL,
                      host TEXT NOT NULL,
                      provider_class TEXT,
                      state TEXT NOT NULL,
                      failure_count INTEGER NOT NULL DEFAULT 0,
                      open_cycles INTEGER NOT NULL DEFAULT 0,
                      opened_at INTEGER,
                      last_failure_at INTEGER,
                      last_failure_kind TEXT,
                      consecutive_successes INTEGER NOT NULL DEFAULT 0,
                      updated_at INTEGER NOT NULL
                    )""")),
            new Migration(3, "combos", List.of(
                    """
                    CREATE TABLE combos (
                      name TEXT PRIMARY KEY,
                      strategy TEXT NOT NULL,
                      strategy_options TEXT NOT NULL,
                      targets TEXT NOT NULL,
                      created_at INTEGER NOT NULL,
                      updated_at INTEGER NOT NULL
                    )""")),
            new Migration(4, "session affinity and exclusive session leases", List.of(
                    """
                    CREATE TABLE session_account_affinity (
                      session_key TEXT NOT NULL,
                      provider TEXT NOT NULL,
                      connection_id TEXT NOT NULL,
                      created_at INTEGER NOT NULL,
                      last_seen_at INTEGER NOT NULL,
                      PRIMARY KEY (session_key, provider)
                    )""",
                    "CREATE INDEX idx_affinity_connection ON session_account_affinity(connection_id)",
                    """
                    CREATE TABLE exclusive_connection_leases (
                      id TEXT PRIMARY KEY,
                      owner_hash TEXT NOT NULL,
                      key_id TEXT NOT NULL,
                      connection_id TEXT NOT NULL,
                      model TEXT NOT NULL,
                      generation INTEGER NOT NULL,
                      state TEXT NOT NULL,
                      end_reason TEXT,
                      ttl_ms INTEGER NOT NULL,
                      created_at INTEGER NOT NULL,
                      expires_at INTEGER NOT NULL,
                      updated_at INTEGER NOT NULL
                    )""",
                    // SL-4: one active lease per owner and one per connection, by the database, so racing acquires cannot double-book
                    "CREATE UNIQUE INDEX ux_leases_active_owner ON exclusive_connection_leases(owner_hash) WHERE state = 'ACTIVE'",
                    "CREATE UNIQUE INDEX ux_leases_active_connection ON exclusive_connection_leases(connection_id) WHERE state = 'ACTIVE'",
                    "CREATE INDEX idx_leases_owner ON exclusive_connection_leases(owner_hash, generation)")),
            new Migration(5, "usage: one row per client request (DM-3)", List.of(
                    """
                    CREATE TABLE usage (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      ts INTEGER NOT NULL,
                      request_id TEXT NOT NULL,
                      key_id TEXT,
                      api TEXT NOT NULL,
                      provider TEXT,
                      connection_id TEXT,
                      model TEXT,
                      prompt_tokens INTEGER,
                      completion_tokens INTEGER,
                      cached_tokens INTEGER,
                      reasoning_tokens INTEGER,
                      status INTEGER NOT NULL,
                      latency_ms INTEGER NOT NULL,
                      attempts INTEGER NOT NULL
                    )""",
                    "CREATE INDEX idx_usage_ts ON usage(ts)")),
            // issue 26: a row per request cost a write per request; requests are now counted in memory per minute and bucket
            // and added to that bucket's row. The per-request rows become their minutes' aggregates, so totals do not move
            new Migration(6, "usage: one row per minute, key, api, provider, connection and model (DM-3, issue 26)", List.of(
                    """
                    CREATE TABLE usage_minutes (
                      ts INTEGER NOT NULL,
                      key_id TEXT NOT NULL,
                      api TEXT NOT NULL,
                      provider TEXT NOT NULL,
                      connection_id TEXT NOT NULL,
                      model TEXT NOT NULL,
                      requests INTEGER NOT NULL,
                      errors INTEGER NOT NULL,
                      prompt_tokens INTEGER NOT NULL,
                      completion_tokens INTEGER NOT NULL,
                      cached_tokens INTEGER NOT NULL,
                      reasoning_tokens INTEGER NOT NULL,
                      latency_ms INTEGER NOT NULL,
                      attempts INTEGER NOT NULL,
                      CONSTRAINT pk_usage PRIMARY KEY (ts, key_id, api, provider, connection_id, model)
                    )""",
                    """
                    INSERT INTO usage_minutes (ts, key_id, api, provider, connection_id, model, requests, errors, prompt_tokens,
                      completion_tokens, cached_tokens, reasoning_tokens, latency_ms, attempts)
                    SELECT (ts / 60000) * 60000, COALESCE(key_id, ''), api, COALESCE(provider, ''), COALESCE(connection_id, ''),
                      COALESCE(model, ''), COUNT(*), SUM(CASE WHEN status >= 400 THEN 1 ELSE 0 END), COALESCE(SUM(prompt_tokens), 0),
                      COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cached_tokens), 0), COALESCE(SUM(reasoning_tokens), 0),
                      SUM(latency_ms), SUM(attempts)
                    FROM usage
                    GROUP BY (ts / 60000) * 60000, COALESCE(key_id, ''), api, COALESCE(provider, ''), COALESCE(connection_id, ''),
                      COALESCE(model, '')""",
                    "DROP TABLE usage",
                    "ALTER TABLE usage_minutes RENAME TO usage")),
            // issue 32: what the upstream's GET /models last answered lives with the connection's row, so every instance
            // sharing the database lists it; a column, not providerSpecificData, so an admin's PUT never erases it
            new Migration(7, "provider_connections: discovered models (issue 32)", List.of(
                    "ALTER TABLE provider_connections ADD COLUMN discovered_models TEXT")),
            // issue 33: a key may be limited to some models; an attempt's row keeps the cooldown or lockout it caused
            new Migration(8, "api_keys: allowed models; proxy_logs: what a failed attempt caused (issue 33)", List.of(
                    "ALTER TABLE api_keys ADD COLUMN allowed_models TEXT NOT NULL DEFAULT ''",
                    "ALTER TABLE proxy_logs ADD COLUMN effect_kind TEXT",
                    "ALTER TABLE proxy_logs ADD COLUMN effect_until INTEGER",
                    "ALTER TABLE proxy_logs ADD COLUMN effect_reason TEXT")));

    /** The key of the advisory lock under which one PostgreSQL instance migrates while the others wait. */
    static final long MIGRATION_LOCK = 0x5_11CE_0001L;

    private Migrations() {
    }

    /** The migrations of a dialect. */
    static List<Migration> of(Database.Dialect dialect) {
        return dialect == Database.Dialect.POSTGRESQL ? PostgresMigrations.ALL : ALL;
    }

    /**
     * Applies the migrations the database lacks, each in its own transaction. On PostgreSQL the
     * whole run holds an advisory lock, so that of two instances started together one migrates
     * and the other then finds nothing left to do.
     */
    static void apply(Database db) {
        db.withConnection(c -> {
            boolean pg = db.dialect() == Database.Dialect.POSTGRESQL;
            if (pg) {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
                    ps.setLong(1, MIGRATION_LOCK);
                    ps.execute();
                }
            }
            try {
                applyAll(c, db.dialect());
            } finally {
                if (pg) {
                    try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                        ps.setLong(1, MIGRATION_LOCK);
                        ps.execute();
                    }
                }
            }
            return null;
        });
    }

    private static void applyAll(java.sql.Connection c, Database.Dialect dialect) throws java.sql.SQLException {
        boolean pg = dialect == Database.Dialect.POSTGRESQL;
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at "
                    + (pg ? "BIGINT" : "INTEGER") + " NOT NULL)");
        }
        int current;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")) {
            current = rs.next() ? rs.getInt(1) : 0;
        }
        String now = pg ? "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)" : "strftime('%s','now')*1000";
        for (Migration m : of(dialect)) {
            if (m.version() <= current) {
                continue;
            }
            c.setAutoCommit(false);
            try {
                try (Statement s = c.createStatement()) {
                    for (String sql : m.statements()) {
                        s.execute(sql);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO schema_migrations(version, description, applied_at) VALUES (?,?,"
                        + now + ")")) {
                    ps.setInt(1, m.version());
                    ps.setString(2, m.description());
                    ps.executeUpdate();
                }
                c.commit();
            } catch (java.sql.SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    static int latestVersion() {
        return ALL.get(ALL.size() - 1).version();
    }

    static int latestVersion(Database.Dialect dialect) {
        List<Migration> list = of(dialect);
        return list.get(list.size() - 1).version();
    }
}
