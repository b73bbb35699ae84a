package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Exclusive session leases on SQLite or PostgreSQL, table {@code exclusive_connection_leases} (SPEC
 * SL-4): the partial unique indexes allow one {@code ACTIVE} row per owner and one per connection,
 * so no interleaving of writes can double-book; every change is one transaction, so a crash keeps
 * each lease whole. With PostgreSQL, decisions of several instances are serialised by an advisory
 * lock ({@link #serialized}) and every write is announced ({@value #TOPIC}).
 */
public final class JdbcLeaseStore {

    /** What the change notifications of this store name. */
    public static final String TOPIC = "leases";
    /** The advisory lock under which one instance at a time decides about leases. */
    static final long LEASE_LOCK = 0x5_11CE_0002L;

    private static final String COLUMNS = "id, owner_hash, key_id, connection_id, model, generation, state, end_reason, ttl_ms,"
            + " created_at, expires_at, updated_at";

    private final Database db;

    /**
     * Creates the store.
     *
     * @param db the database
     */
    public JdbcLeaseStore(Database db) {
        this.db = requireNonNull(db, "db is null");
    }

    /** @return true when several instances share the table (PostgreSQL) */
    public boolean shared() {
        return db.shared();
    }

    /**
     * Runs a lease decision alone across every instance: in PostgreSQL inside a transaction that
     * holds the lease lock until it ends ({@code pg_advisory_xact_lock}, released even when the
     * instance dies); in SQLite, which one process owns, as it is.
     *
     * @param decision reads and writes through this store
     * @param <T> the result
     * @return the decision's result
     */
    public <T> T serialized(java.util.function.Supplier<T> decision) {
        if (!db.shared()) {
            return decision.get();
        }
        return db.inTransaction(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
                ps.setLong(1, LEASE_LOCK);
                ps.execute();
            }
            return decision.get();
        });
    }

    /** @return every active lease */
    public List<LeaseRow> active() {
        return query("SELECT " + COLUMNS + " FROM exclusive_connection_leases WHERE state = 'ACTIVE' ORDER BY created_at", null);
    }

    /**
     * The owner's latest lease (the highest generation), active or not.
     *
     * @param ownerHash the owner hash
     * @return the row
     */
    public Optional<LeaseRow> latest(String ownerHash) {
        return query("SELECT " + COLUMNS + " FROM exclusive_connection_leases WHERE owner_hash = ? ORDER BY generation DESC LIMIT 1",
                ownerHash).stream().findFirst();
    }

    /**
     * The owner's lease of one generation.
     *
     * @param ownerHash the owner hash
     * @param generation the generation
     * @return the row
     */
    public Optional<LeaseRow> find(String ownerHash, long generation) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS
                    + " FROM exclusive_connection_leases WHERE owner_hash = ? AND generation = ? LIMIT 1")) {
                ps.setString(1, ownerHash);
                ps.setLong(2, generation);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(read(rs)) : Optional.<LeaseRow>empty();
                }
            }
        });
    }

    /**
     * Writes rows in one transaction: each is inserted, or updated when its id exists.
     *
     * @param rows the rows, in order (an ended row before the one that replaces it)
     */
    public void write(List<LeaseRow> rows) {
        db.inTransaction(c -> {
            for (LeaseRow r : rows) {
                upsert(c, r);
            }
            db.announce(c, TOPIC);
            return null;
        });
    }

    private static void upsert(Connection c, LeaseRow r) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO exclusive_connection_leases(" + COLUMNS
                + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET state = excluded.state,"
                + " end_reason = excluded.end_reason, ttl_ms = excluded.ttl_ms, expires_at = excluded.expires_at,"
                + " updated_at = excluded.updated_at")) {
            ps.setString(1, r.id());
            ps.setString(2, r.ownerHash());
            ps.setString(3, r.keyId());
            ps.setString(4, r.connectionId());
            ps.setString(5, r.model());
            ps.setLong(6, r.generation());
            ps.setString(7, r.state());
            ps.setString(8, r.endReason());
            ps.setLong(9, r.ttlMs());
            ps.setLong(10, r.createdAt());
            ps.setLong(11, r.expiresAt());
            ps.setLong(12, r.updatedAt());
            ps.executeUpdate();
        }
    }

    private List<LeaseRow> query(String sql, String arg) {
        return db.withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                if (arg != null) {
                    ps.setString(1, arg);
                }
                List<LeaseRow> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(read(rs));
                    }
                }
                return out;
            }
        });
    }

    private static LeaseRow read(ResultSet rs) throws SQLException {
        return new LeaseRow(rs.getString("id"), rs.getString("owner_hash"), rs.getString("key_id"), rs.getString("connection_id"),
                rs.getString("model"), rs.getLong("generation"), rs.getString("state"), rs.getString("end_reason"), rs.getLong("ttl_ms"),
                rs.getLong("created_at"), rs.getLong("expires_at"), rs.getLong("updated_at"));
    }
}
