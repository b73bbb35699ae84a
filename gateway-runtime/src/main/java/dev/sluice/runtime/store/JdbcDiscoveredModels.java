package dev.sluice.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * What each connection's upstream last answered to {@code GET /models} (issue 32), kept in the
 * connection's own row ({@code provider_connections.discovered_models}, a JSON text the caller
 * writes and reads): it goes when the connection goes, and every instance sharing the database
 * sees it. A write announces {@value #TOPIC}{@code :id}; it is not a configuration change, so it
 * neither bumps {@code updatedAt} nor makes followers re-read the connections.
 */
public final class JdbcDiscoveredModels {

    static final String TOPIC = "connection_models";

    private final Database db;

    /**
     * Creates the store.
     *
     * @param db the database
     */
    public JdbcDiscoveredModels(Database db) {
        this.db = db;
    }

    /**
     * Stores one connection's discovery.
     *
     * @param connectionId the connection
     * @param json the discovery as JSON text
     * @return false when the connection no longer exists
     */
    public boolean save(String connectionId, String json) {
        return db.inTransaction(c -> {
            int n;
            try (PreparedStatement ps = c.prepareStatement("UPDATE provider_connections SET discovered_models=? WHERE id=?")) {
                ps.setString(1, json);
                ps.setString(2, connectionId);
                n = ps.executeUpdate();
            }
            if (n > 0) {
                db.announce(c, TOPIC + ":" + connectionId);
            }
            return n > 0;
        });
    }

    /**
     * Every stored discovery.
     *
     * @return connection id to JSON text
     */
    public Map<String, String> all() {
        return db.withConnection(c -> {
            Map<String, String> out = new HashMap<>();
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT id, discovered_models FROM provider_connections WHERE discovered_models IS NOT NULL");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getString(2));
                }
            }
            return out;
        });
    }

    /**
     * One connection's stored discovery.
     *
     * @param connectionId the connection
     * @return its JSON text, or empty
     */
    public Optional<String> find(String connectionId) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT discovered_models FROM provider_connections WHERE id=?")) {
                ps.setString(1, connectionId);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.<String>empty();
                }
            }
        });
    }

    /**
     * Hands another instance's discovery (or every row, after the feed reconnected) to
     * {@code onChange} as it is announced.
     *
     * @param feed the change notifications
     * @param onChange receives the connection id and its JSON text (null when none or gone)
     */
    public void follow(ChangeFeed feed, BiConsumer<String, String> onChange) {
        feed.subscribe(TOPIC, id -> {
            if (id == null) {
                all().forEach(onChange);
            } else {
                onChange.accept(id, find(id).orElse(null));
            }
        });
    }
}
