package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * {@link ApiKeyStore} on SQLite or PostgreSQL with an in-memory index by hash; writes are announced
 * ({@value #TOPIC}) so that other instances re-read theirs ({@link #follow}).
 */
public final class JdbcApiKeyStore implements ApiKeyStore {

    /** What the change notifications of this store name. */
    static final String TOPIC = "keys";

    private final InstantSource clock;
    private final AnnouncedSnapshot<Keys> keys;

    /** The keys in creation order, and by hash. */
    private record Keys(List<ApiKey> list, Map<String, ApiKey> byHash) {
    }

    /**
     * Creates the store and loads the snapshot.
     *
     * @param db the database
     * @param clock the clock
     */
    public JdbcApiKeyStore(Database db, InstantSource clock) {
        this.clock = clock;
        // creation order: SQLite's rowid, PostgreSQL's identity column
        String order = db.dialect() == Database.Dialect.POSTGRESQL ? "seq" : "rowid";
        this.keys = new AnnouncedSnapshot<>(db, TOPIC, c -> read(c, order));
    }

    @Override
    public List<ApiKey> list() {
        return keys.get().list();
    }

    @Override
    public Optional<ApiKey> findByHash(String keyHash) {
        return Optional.ofNullable(keys.get().byHash().get(keyHash));
    }

    @Override
    public ApiKey create(String name, String keyHash, String keyPreview, ApiKey.Grants grants) {
        String id = UUID.randomUUID().toString();
        keys.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO api_keys (id, name, key_hash, key_preview, scopes,"
                    + " allowed_connections, allowed_models, created_at) VALUES (?,?,?,?,?,?,?,?)")) {
                ps.setString(1, id);
                ps.setString(2, name);
                ps.setString(3, keyHash);
                ps.setString(4, keyPreview);
                ps.setString(5, String.join("\n", grants.scopes()));
                ps.setString(6, String.join("\n", grants.allowedConnections()));
                ps.setString(7, String.join("\n", grants.allowedModels()));
                ps.setLong(8, clock.millis());
                ps.executeUpdate();
            }
            return null;
        });
        return list().stream().filter(k -> k.id().equals(id)).findFirst().orElseThrow();
    }

    @Override
    public Optional<ApiKey> update(String id, String name, ApiKey.Grants grants) {
        int n = keys.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE api_keys SET name=?, scopes=?, allowed_connections=?,"
                    + " allowed_models=? WHERE id=?")) {
                ps.setString(1, name);
                ps.setString(2, String.join("\n", grants.scopes()));
                ps.setString(3, String.join("\n", grants.allowedConnections()));
                ps.setString(4, String.join("\n", grants.allowedModels()));
                ps.setString(5, id);
                return ps.executeUpdate();
            }
        });
        return n == 0 ? Optional.empty() : list().stream().filter(k -> k.id().equals(id)).findFirst();
    }

    @Override
    public boolean delete(String id) {
        int n = keys.write(c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM api_keys WHERE id=?")) {
                ps.setString(1, id);
                return ps.executeUpdate();
            }
        });
        return n > 0;
    }

    /**
     * Re-reads the keys whenever another instance announces a change.
     *
     * @param feed the change notifications
     */
    public void follow(ChangeFeed feed) {
        keys.follow(feed, null);
    }

    private static Keys read(java.sql.Connection c, String order) throws java.sql.SQLException {
        List<ApiKey> all = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT id, name, key_hash, key_preview, scopes, allowed_connections,"
                + " allowed_models, created_at FROM api_keys ORDER BY " + order);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                all.add(new ApiKey(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        split(rs.getString(5)), split(rs.getString(6)), split(rs.getString(7)), rs.getLong(8)));
            }
        }
        Map<String, ApiKey> index = new HashMap<>();
        all.forEach(k -> index.put(k.keyHash(), k));
        return new Keys(List.copyOf(all), Map.copyOf(index));
    }

    private static List<String> split(String s) {
        return s == null || s.isEmpty() ? List.of() : Arrays.asList(s.split("\n"));
    }
}
