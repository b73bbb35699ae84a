package dev.sluice.runtime.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The database of the durable records, in one of two dialects. SQLite (the default): one JDBC
 * connection, WAL journal, access serialised by a lock held for the duration of one statement or
 * transaction (admin writes and log batches are rare and short; the request path reads memory
 * snapshots instead). PostgreSQL ({@code SLUICE_DATABASE_URL}, NF-6): a HikariCP pool shared by
 * the stores, and change notifications ({@link #announce}) that tell the other instances to re-read
 * their snapshots. Migrations are applied at open, in both dialects.
 *
 * <p>{@code synchronous=NORMAL} in WAL mode keeps every committed transaction across a process
 * crash (kill -9); only an OS crash could lose the last transactions.
 */
public final class Database implements AutoCloseable {

    /** The database file name inside the data folder. */
    public static final String FILE_NAME = "sluice.db";
    /** The PostgreSQL notification channel of the change notifications. */
    public static final String CHANNEL = "sluice_changes";
    /** Pooled PostgreSQL connections per instance: admin writes, log batches, lease decisions. */
    static final int POOL_SIZE = 8;
    /** How long a caller waits for a pooled connection (an unreachable database fails a write after this). */
    static final long CONNECTION_TIMEOUT_MS = 3_000;
    /** A statement that gets no answer for this long fails (a partition must not hang a writer forever). */
    static final int SOCKET_TIMEOUT_S = 30;
    /** Held so that the level set on it is not lost with a collected logger. */
    private static final java.util.logging.Logger HIKARI_LOG = java.util.logging.Logger.getLogger("com.zaxxer.hikari");

    /** The two engines. */
    public enum Dialect {
        /** The embedded SQLite file of the data folder. */
        SQLITE,
        /** A PostgreSQL database shared by several instances. */
        POSTGRESQL;

        /** @return {@code sqlite} or {@code postgresql} */
        public String kind() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Dialect dialect;
    private final Connection jdbc;
    private final HikariDataSource pool;
    private final DatabaseSettings target;
    private final ReentrantLock lock = new ReentrantLock();
    private final String url;

    /** One of {@code jdbc} (SQLite: one connection) and {@code pool} (PostgreSQL) is null. */
    private Database(Dialect dialect, Connection jdbc, HikariDataSource pool, DatabaseSettings target, String url) {
        this.dialect = dialect;
        this.jdbc = jdbc;
        this.pool = pool;
        this.target = target;
        this.url = url;
    }

    /**
     * Opens the configured database and migrates it: PostgreSQL when a URL is configured, else
     * {@code <dataDir>/sluice.db}.
     *
     * @param dataDir the data folder (SQLite)
     * @param target the configured database
     * @return the database
     */
    public static Database open(Path dataDir, DatabaseSettings target) {
        return target.postgres() ? openPostgres(target) : open(dataDir);
    }

    /**
     * Opens (creating when missing) {@code <dataDir>/sluice.db} and migrates it.
     *
     * @param dataDir the data folder
     * @return the database
     */
    public static Database open(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
            ownerOnly(dataDir.resolve(FILE_NAME));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create data folder " + dataDir, e);
        }
        return openUrl("jdbc:sqlite:" + dataDir.resolve(FILE_NAME).toAbsolutePath());
    }

    /** The suffixes of the files SQLite keeps beside the database in WAL mode. */
    private static final List<String> COMPANIONS = List.of("", "-wal", "-shm", "-journal");

    /**
     * Makes the database and its companion files readable by their owner only (SEC-3: they hold
     * sealed credentials, URLs with passwords and request metadata), like {@code secret.key}. The
     * database file is created empty with mode 600 when missing, and SQLite gives the WAL and
     * shared-memory files it creates the database file's mode; files of an older installation
     * are narrowed to 600. Nothing happens on a file system without POSIX permissions.
     */
    static void ownerOnly(Path db) throws IOException {
        if (!db.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return;
        }
        Set<PosixFilePermission> rw = PosixFilePermissions.fromString("rw-------");
        try {
            Files.createFile(db, PosixFilePermissions.asFileAttribute(rw));
        } catch (FileAlreadyExistsException e) {
            // an existing database: narrowed below
        }
        for (String suffix : COMPANIONS) {
            Path f = db.resolveSibling(db.getFileName() + suffix);
            if (Files.exists(f) && !Files.getPosixFilePermissions(f).equals(rw)) {
                Files.setPosixFilePermissions(f, rw);
            }
        }
    }

    static Database openUrl(String url) {
        try {
            Connection c = DriverManager.getConnection(url);
            try (Statement s = c.createStatement()) {
                s.execute("PRAGMA journal_mode=WAL");
                s.execute("PRAGMA synchronous=NORMAL");
                s.execute("PRAGMA foreign_keys=ON");
                s.execute("PRAGMA busy_timeout=5000");
            }
            Database db = new Database(Dialect.SQLITE, c, null, DatabaseSettings.SQLITE, url);
            Migrations.apply(db);
            return db;
        } catch (SQLException e) {
            throw new StoreException("cannot open database " + url + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens a PostgreSQL database through a pool and migrates it. The database must answer now:
     * an instance that cannot load its snapshots does not start.
     *
     * @param target the URL and credentials
     * @return the database
     */
    static Database openPostgres(DatabaseSettings target) {
        // the pool's start and stop lines are noise beside Sluice's own; its warnings and errors stay
        HIKARI_LOG.setLevel(java.util.logging.Level.WARNING);
        HikariConfig config = new HikariConfig();
        config.setDataSource(dataSource(target, SOCKET_TIMEOUT_S));
        config.setPoolName("sluice-db");
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(CONNECTION_TIMEOUT_MS);
        config.setValidationTimeout(Math.min(CONNECTION_TIMEOUT_MS - 500, 2_000));
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StoreException("cannot open database " + target.url() + ": " + rootMessage(e), e);
        }
        Database db = new Database(Dialect.POSTGRESQL, null, pool, target, DatabaseSettings.mask(target.url()));
        try {
            Migrations.apply(db);
            return db;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    /** A driver data source for the URL, the credentials passed beside it (never in the URL). */
    static PGSimpleDataSource dataSource(DatabaseSettings target, int socketTimeoutSeconds) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(target.url());
        if (target.user() != null) {
            ds.setUser(target.user());
        }
        if (target.password() != null) {
            ds.setPassword(target.password());
        }
        ds.setConnectTimeout(5);
        ds.setLoginTimeout(5);
        ds.setSocketTimeout(socketTimeoutSeconds);
        ds.setTcpKeepAlive(true);
        ds.setApplicationName("sluice");
        return ds;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    /** @return the engine */
    public Dialect dialect() {
        return dialect;
    }

    /** @return true when several instances may share this database (PostgreSQL) */
    public boolean shared() {
        return dialect == Dialect.POSTGRESQL;
    }

    /** @return the JDBC URL, never with a password: what health and logs may show */
    public String url() {
        return url;
    }

    /** @return the configured database (URL without credentials), {@link DatabaseSettings#SQLITE} for SQLite */
    public DatabaseSettings target() {
        return target;
    }

    /**
     * Tells the other instances that records changed, as part of the caller's transaction: the
     * notification is delivered when (and only when) the transaction commits. Nothing in SQLite,
     * which one process owns.
     *
     * @param c the connection of the write
     * @param what what changed ({@code connections}, {@code keys}, … optionally {@code :id})
     * @throws SQLException on failure
     */
    public void announce(Connection c, String what) throws SQLException {
        if (dialect != Dialect.POSTGRESQL) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify('" + CHANNEL + "', ?)")) {
            ps.setString(1, what);
            ps.execute();
        }
    }

    /** Work done with the JDBC connection under the lock. */
    @FunctionalInterface
    public interface Work<T> {
        /**
         * Does the work.
         *
         * @param c the connection
         * @return a result
         * @throws SQLException on failure
         */
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs work under the lock.
     *
     * @param work the work
     * @param <T> result type
     * @return the result
     */
    public <T> T withConnection(Work<T> work) {
        if (pool != null) {
            try (Connection c = pool.getConnection()) {
                return work.run(c);
            } catch (SQLException e) {
                throw failure(e);
            }
        }
        lock.lock();
        try {
            return work.run(jdbc);
        } catch (SQLException e) {
            throw failure(e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A failure, marked unavailable when the database could not be reached: a pool timeout, SQLSTATE
     * class 08 (connection exception) or 57P (the server shut down or is starting).
     */
    private static StoreException failure(SQLException e) {
        String state = e.getSQLState();
        boolean unreachable = e instanceof SQLTransientConnectionException
                || (state != null && (state.startsWith("08") || state.startsWith("57P")));
        return new StoreException("database error: " + e.getMessage(), e, unreachable);
    }

    /**
     * Runs work in one transaction under the lock.
     *
     * @param work the work
     * @param <T> result type
     * @return the result
     */
    public <T> T inTransaction(Work<T> work) {
        return withConnection(c -> {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c, e);
                throw e;
            } finally {
                if (!c.isClosed()) {
                    c.setAutoCommit(true);
                }
            }
        });
    }

    /** A rollback that fails (the connection died) must not hide why the transaction failed. */
    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * The schema version (highest applied migration).
     *
     * @return the version
     */
    public int schemaVersion() {
        return withConnection(c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
                    ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        });
    }

    /**
     * The journal mode reported by SQLite (expected {@code wal}).
     *
     * @return the mode
     */
    public String journalMode() {
        if (dialect != Dialect.SQLITE) {
            return "";
        }
        return withConnection(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
                return rs.next() ? rs.getString(1) : "";
            }
        });
    }

    /**
     * Whether the database answers a trivial query (readiness).
     *
     * @return true when healthy
     */
    public boolean ping() {
        try {
            return withConnection(c -> {
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT 1")) {
                    return rs.next();
                }
            });
        } catch (StoreException e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
            return;
        }
        withConnection(c -> {
            c.close();
            return null;
        });
    }
}
