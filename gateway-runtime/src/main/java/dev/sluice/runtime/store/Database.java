package dev.sluice.runtime.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The SQLite database: one JDBC connection, WAL journal, migrations applied at open. Access is
 * serialised by a lock held for the duration of one statement or transaction (admin writes and
 * log batches are rare and short; the request path reads memory snapshots instead).
 *
 * <p>{@code synchronous=NORMAL} in WAL mode keeps every committed transaction across a process
 * crash (kill -9); only an OS crash could lose the last transactions.
 */
public final class Database implements AutoCloseable {

    /** The database file name inside the data folder. */
    public static final String FILE_NAME = "sluice.db";

    private final Connection jdbc;
    private final ReentrantLock lock = new ReentrantLock();

    private Database(Connection jdbc) {
        this.jdbc = jdbc;
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
            Database db = new Database(c);
            Migrations.apply(db);
            return db;
        } catch (SQLException e) {
            throw new StoreException("cannot open database " + url + ": " + e.getMessage(), e);
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
        lock.lock();
        try {
            return work.run(jdbc);
        } catch (SQLException e) {
            throw new StoreException("database error: " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
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
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        });
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
        withConnection(c -> {
            c.close();
            return null;
        });
    }
}
