package dev.sluice.runtime.store;

import dev.sluice.api.ProviderClass;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * {@link ConnectionStore} on SQLite or PostgreSQL, credentials sealed by a {@link CredentialSealer}.
 * Every write is announced ({@value #TOPIC}, or {@value #TOPIC}{@code :id} for one row) in its own
 * transaction, so other instances sharing the database re-read their snapshot ({@link #follow}).
 */
public final class JdbcConnectionStore implements ConnectionStore {

    /** What the change notifications of this store name. */
    static final String TOPIC = "connections";

    private static final String COLUMNS = "id, seq, provider, name, auth_type, api_key_enc, oauth_access_enc, oauth_refresh_enc,"
            + " oauth_expires_at, base_url, priority, enabled, max_concurrent, rate_limit_overrides, rate_limit_protection,"
            + " disable_cooling, provider_specific_data, local_address, proxy_url, test_status, rate_limited_until, last_error,"
            + " last_error_type, error_code, backoff_level, expired_retries, created_at, updated_at";

    private final Database db;
    private final CredentialSealer box;
    private final InstantSource clock;
    private final AnnouncedSnapshot<List<Connection>> snapshot;

    /**
     * Creates the store and loads the snapshot.
     *
     * @param db the database
     * @param box credential sealing
     * @param clock the clock
     */
    public JdbcConnectionStore(Database db, CredentialSealer box, InstantSource clock) {
        this.db = db;
        this.box = box;
        this.clock = clock;
        sealStoredUrls();
        this.snapshot = new AnnouncedSnapshot<>(db, TOPIC, this::readAll);
    }

    /** Rows written before URLs with a password were sealed (SEC-3) are sealed now, once. */
    private void sealStoredUrls() {
        db.inTransaction(c -> {
            List<String[]> rows = new java.util.ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT id, base_url, proxy_url FROM provider_connections"
                    + " WHERE (base_url LIKE '%@%' AND base_url NOT LIKE 'v1:%') OR (proxy_url LIKE '%@%' AND proxy_url NOT LIKE 'v1:%')");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
                }
            }
            for (String[] r : rows) {
                try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET base_url=?, proxy_url=? WHERE id=?")) {
                    ps.setString(1, r[1] == null || r[1].startsWith("v1:") ? r[1] : sealUrl(r[1]));
                    ps.setString(2, r[2] == null || r[2].startsWith("v1:") ? r[2] : sealUrl(r[2]));
                    ps.setString(3, r[0]);
                    ps.executeUpdate();
                }
            }
            return null;
        });
    }

    @Override
    public List<Connection> list() {
        return snapshot.get();
    }

    @Override
    public Optional<Connection> find(String id) {
        for (Connection c : snapshot.get()) {
            if (c.id().equals(id)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    @Override
    public Connection create(NewConnection f) {
        String id = UUID.randomUUID().toString();
        long now = clock.millis();
        writeAndReload(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO provider_connections (" + COLUMNS + ") VALUES ("
                    + "?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM provider_connections), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?,"
                    + " 'active', NULL, NULL, NULL, NULL, 0, 0, ?, ?)")) {
                int i = 1;
                ps.setString(i++, id);
                i = bindFields(ps, i, f);
                ps.setLong(i++, now);
                ps.setLong(i, now);
                ps.executeUpdate();
            }
            return null;
        });
        return find(id).orElseThrow();
    }

    @Override
    public Optional<Connection> update(String id, NewConnection f, boolean rateLimitProtection) {
        int n = writeAndReload(c -> {
            // CC-6: terminal states (and cooldowns) last until the credentials change
            Connection old = find(id).orElse(null);
            boolean newCredentials = old != null && credentialsChanged(old, f);
            try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET provider=?, name=?, auth_type=?,"
                    + " api_key_enc=?, oauth_access_enc=?, oauth_refresh_enc=?, oauth_expires_at=?, base_url=?, priority=?, enabled=?,"
                    + " max_concurrent=?, rate_limit_overrides=?, disable_cooling=?, provider_specific_data=?, local_address=?,"
                    + " proxy_url=?, rate_limit_protection=?, updated_at=?"
                    + (newCredentials ? ", test_status='active', rate_limited_until=NULL, last_error=NULL, last_error_type=NULL,"
                            + " error_code=NULL, backoff_level=0, expired_retries=0" : "")
                    + " WHERE id=?")) {
                int i = bindFields(ps, 1, f);
                ps.setInt(i++, rateLimitProtection ? 1 : 0);
                ps.setLong(i++, clock.millis());
                ps.setString(i, id);
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : find(id);
    }

    private static boolean credentialsChanged(Connection old, NewConnection f) {
        String oldAccess = old.oauth() == null ? null : old.oauth().accessToken();
        String oldRefresh = old.oauth() == null ? null : old.oauth().refreshToken();
        String newAccess = f.oauth() == null ? null : f.oauth().accessToken();
        String newRefresh = f.oauth() == null ? null : f.oauth().refreshToken();
        return !java.util.Objects.equals(old.apiKey(), f.apiKey()) || !java.util.Objects.equals(oldAccess, newAccess)
                || !java.util.Objects.equals(oldRefresh, newRefresh);
    }

    @Override
    public Optional<Connection> updateState(String id, ConnectionState s) {
        int n = writeAndReloadOne(id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET test_status=?, rate_limited_until=?,"
                    + " last_error=?, last_error_type=?, error_code=?, backoff_level=?, expired_retries=?, updated_at=? WHERE id=?")) {
                ps.setString(1, s.testStatus());
                setLong(ps, 2, s.rateLimitedUntil());
                ps.setString(3, s.lastError());
                ps.setString(4, s.lastErrorType());
                ps.setString(5, s.errorCode());
                ps.setInt(6, s.backoffLevel());
                ps.setInt(7, s.expiredRetries());
                ps.setLong(8, clock.millis());
                ps.setString(9, id);
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : find(id);
    }

    @Override
    public Optional<Connection> putProviderSetting(String id, String key, String value) {
        int n = writeAndReloadOne(id, c -> {
            String json;
            try (PreparedStatement ps = c.prepareStatement("SELECT provider_specific_data FROM provider_connections WHERE id=?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return 0;
                    }
                    json = rs.getString(1);
                }
            }
            // read and written in one transaction: a concurrent admin edit is not lost
            java.util.Map<String, Object> psd = new java.util.LinkedHashMap<>();
            if (json != null && !json.isBlank()) {
                try {
                    psd.putAll(dev.sluice.toolkit.json.Json.parseObject(json));
                } catch (IllegalArgumentException e) {
                    // an unreadable object is replaced
                }
            }
            psd.put(key, value);
            try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET provider_specific_data=?, updated_at=?"
                    + " WHERE id=?")) {
                ps.setString(1, dev.sluice.toolkit.json.Json.write(psd));
                ps.setLong(2, clock.millis());
                ps.setString(3, id);
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : find(id);
    }

    @Override
    public Optional<Connection> updateRateLimitProtection(String id, boolean enabled) {
        int n = writeAndReloadOne(id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET rate_limit_protection=?, updated_at=?"
                    + " WHERE id=?")) {
                ps.setInt(1, enabled ? 1 : 0);
                ps.setLong(2, clock.millis());
                ps.setString(3, id);
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : find(id);
    }

    @Override
    public Optional<Connection> updateOAuth(String id, OAuthTokens tokens) {
        int n = writeAndReloadOne(id, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET oauth_access_enc=?,"
                    + " oauth_refresh_enc=?, oauth_expires_at=?, updated_at=? WHERE id=?")) {
                ps.setString(1, box.seal(tokens.accessToken()));
                ps.setString(2, box.seal(tokens.refreshToken()));
                setLong(ps, 3, tokens.expiresAt());
                ps.setLong(4, clock.millis());
                ps.setString(5, id);
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : find(id);
    }

    @Override
    public boolean delete(String id) {
        int n = writeAndReload(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM provider_connections WHERE id=?")) {
                ps.setString(1, id);
                return ps.executeUpdate();
            }
        });
        return n > 0;
    }

    /**
     * Re-reads the snapshot whenever another instance announces a change of connections.
     *
     * @param feed the change notifications
     */
    public void follow(ChangeFeed feed) {
        snapshot.follow(feed, this::reloadOne);
    }

    /** Writes and announces in one transaction, then reads the snapshot again (published in write order). */
    private <T> T writeAndReload(Database.Work<T> work) {
        return snapshot.write(work);
    }

    /**
     * Like {@link #writeAndReload} for a write to one row: only that row is read back (and
     * decrypted) and replaced in a copy of the snapshot, so a cooldown write costs O(1) reads
     * however many connections there are — here and on the instances that follow the change.
     */
    private <T> T writeAndReloadOne(String id, Database.Work<T> work) {
        return snapshot.write(id, work, old -> withRow(old, id));
    }

    @Override
    public Optional<Connection> reread(String id) {
        reloadOne(id);
        return find(id);
    }

    /** Re-reads one row into a copy of the snapshot (removing it when it is gone). */
    private void reloadOne(String id) {
        snapshot.update(old -> withRow(old, id));
    }

    /** The snapshot with one row read again (run under the snapshot's lock, so in order with the writes). */
    private List<Connection> withRow(List<Connection> old, String id) {
        Connection fresh = db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM provider_connections WHERE id=?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? read(rs) : null;
                }
            }
        });
        List<Connection> next = new ArrayList<>(old.size() + 1);
        boolean replaced = false;
        for (Connection o : old) {
            if (!o.id().equals(id)) {
                next.add(o);
            } else if (fresh != null) {
                next.add(fresh);
                replaced = true;
            }
        }
        if (fresh != null && !replaced) {
            next.add(fresh);
            next.sort(java.util.Comparator.comparingLong(Connection::seq));
        }
        return List.copyOf(next);
    }

    private int bindFields(PreparedStatement ps, int start, NewConnection f) throws SQLException {
        int i = start;
        ps.setString(i++, f.provider());
        ps.setString(i++, f.name());
        ps.setString(i++, f.authType().wireName());
        ps.setString(i++, box.seal(f.apiKey()));
        ps.setString(i++, f.oauth() == null ? null : box.seal(f.oauth().accessToken()));
        ps.setString(i++, f.oauth() == null ? null : box.seal(f.oauth().refreshToken()));
        setLong(ps, i++, f.oauth() == null ? null : f.oauth().expiresAt());
        ps.setString(i++, sealUrl(f.baseUrl()));
        ps.setInt(i++, f.priority());
        ps.setInt(i++, f.enabled() ? 1 : 0);
        if (f.maxConcurrent() == null) {
            ps.setNull(i++, Types.INTEGER);
        } else {
            ps.setInt(i++, f.maxConcurrent());
        }
        ps.setString(i++, f.rateLimitOverridesJson());
        ps.setInt(i++, f.disableCooling() ? 1 : 0);
        ps.setString(i++, f.providerSpecificDataJson());
        ps.setString(i++, f.localAddress());
        ps.setString(i++, sealUrl(f.proxyUrl()));
        return i;
    }

    /**
     * A URL as stored (SEC-3): sealed like the credentials when it carries a password
     * ({@code user:password@host}), else as is — operators' SQL and backups keep readable URLs.
     */
    private String sealUrl(String url) {
        if (url == null) {
            return null;
        }
        int scheme = url.indexOf("://");
        int end = url.indexOf('/', scheme < 0 ? 0 : scheme + 3);
        String authority = url.substring(scheme < 0 ? 0 : scheme + 3, end < 0 ? url.length() : end);
        return authority.contains("@") ? box.seal(url) : url;
    }

    /** A stored URL, opened when it was sealed (an http(s) URL never starts with {@code v1:}). */
    private String openUrl(String stored) {
        return stored != null && stored.startsWith("v1:") ? box.open(stored) : stored;
    }

    private static void setLong(PreparedStatement ps, int i, Long v) throws SQLException {
        if (v == null) {
            ps.setNull(i, Types.INTEGER);
        } else {
            ps.setLong(i, v);
        }
    }

    private List<Connection> readAll(java.sql.Connection c) throws SQLException {
        List<Connection> all = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + " FROM provider_connections ORDER BY seq, id");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                all.add(read(rs));
            }
        }
        return List.copyOf(all);
    }

    private Connection read(ResultSet rs) throws SQLException {
        String access = box.open(rs.getString("oauth_access_enc"));
        OAuthTokens oauth = access == null ? null
                : new OAuthTokens(access, box.open(rs.getString("oauth_refresh_enc")), getLong(rs, "oauth_expires_at"));
        Integer maxConcurrent = rs.getObject("max_concurrent") == null ? null : rs.getInt("max_concurrent");
        ConnectionState state = new ConnectionState(rs.getString("test_status"), getLong(rs, "rate_limited_until"),
                rs.getString("last_error"), rs.getString("last_error_type"), rs.getString("error_code"),
                rs.getInt("backoff_level"), rs.getInt("expired_retries"));
        return new Connection(rs.getString("id"), rs.getLong("seq"), rs.getString("provider"), rs.getString("name"),
                ProviderClass.fromWireName(rs.getString("auth_type")), box.open(rs.getString("api_key_enc")), oauth,
                openUrl(rs.getString("base_url")), rs.getInt("priority"), rs.getInt("enabled") != 0, maxConcurrent,
                rs.getString("rate_limit_overrides"), rs.getInt("rate_limit_protection") != 0, rs.getInt("disable_cooling") != 0,
                rs.getString("provider_specific_data"), rs.getString("local_address"), openUrl(rs.getString("proxy_url")), state,
                rs.getLong("created_at"), rs.getLong("updated_at"));
    }

    private static Long getLong(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : v;
    }
}
