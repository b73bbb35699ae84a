package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;


import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.sqlite.SQLiteConfig;

/**
 * A read-only look at {@code <dataDir>/sluice.db} for {@code bin/sluice doctor}: SQLite's own
 * {@code PRAGMA integrity_check} and the schema version. Unlike {@link Database#open} it never
 * creates the folder or the file, applies no migration and opens the file read-only, so that a
 * check cannot change what it checks (it may run next to a live server: WAL readers do not block
 * the writer).
 */
public final class DatabaseCheck {

    /** At most this many of integrity_check's problem lines are reported. */
    static final int MAX_PROBLEMS = 5;

    private DatabaseCheck() {
    }

    /** What the check found. */
    public sealed interface Result {

        /** @return the database file */
        Path file();

        /**
         * No database yet: the server creates it on its first start.
         *
         * @param file the database file
         */
        record Absent(Path file) implements Result {
            /** Validates the fields. */
            public Absent {
                requireNonNull(file, "file is null");
            }
        }

        /**
         * integrity_check answered {@code ok}.
         *
         * @param file the database file
         * @param schemaVersion the highest applied migration (0 when none was)
         * @param knownVersion the highest migration this runtime knows
         */
        record Healthy(Path file, int schemaVersion, int knownVersion) implements Result {
            /** Validates the fields. */
            public Healthy {
                requireNonNull(file, "file is null");
            }
        }

        /**
         * The file cannot be opened or read as a database, or integrity_check found problems.
         *
         * @param file the database file
         * @param problem what SQLite said, for the operator
         */
        record Damaged(Path file, String problem) implements Result {
            /** Validates the fields. */
            public Damaged {
                requireNonNull(file, "file is null");
                requireNonNull(problem, "problem is null");
            }
        }
    }

    /**
     * Checks the database of a data folder.
     *
     * @param dataDir the data folder
     * @return what was found
     */
    public static Result inspect(Path dataDir) {
        Path file = dataDir.resolve(Database.FILE_NAME).toAbsolutePath();
        if (!Files.exists(file)) {
            return new Result.Absent(file);
        }
        if (!Files.isRegularFile(file)) {
            return new Result.Damaged(file, "it is not a regular file");
        }
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        try (Connection c = DriverManager.getConnection(url(file), config.toProperties());
                Statement s = c.createStatement()) {
            List<String> problems = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("PRAGMA integrity_check")) {
                while (rs.next()) {
                    problems.add(rs.getString(1));
                }
            }
            if (!problems.equals(List.of("ok"))) {
                String shown = String.join("; ", problems.subList(0, Math.min(problems.size(), MAX_PROBLEMS)));
                return new Result.Damaged(file, "integrity_check found " + problems.size() + " problem(s): " + shown
                        + (problems.size() > MAX_PROBLEMS ? "; …" : ""));
            }
            return new Result.Healthy(file, schemaVersion(s), Migrations.latestVersion());
        } catch (SQLException e) {
            return new Result.Damaged(file, e.getMessage());
        }
    }

    /**
     * What {@link #inspect(DatabaseSettings)} found about a PostgreSQL database.
     *
     * @param url the URL, without credentials
     * @param reachable whether it answered
     * @param schemaVersion the highest applied migration (0 when none was)
     * @param knownVersion the highest migration this runtime knows
     * @param problem why it did not answer, or null
     */
    public record Remote(String url, boolean reachable, int schemaVersion, int knownVersion, String problem) {
    }

    /**
     * Connects to a PostgreSQL database and reads its schema version; creates nothing, migrates
     * nothing. The driver's message is shown (pgjdbc names no password).
     *
     * @param target the configured database
     * @return what was found
     */
    public static Remote inspect(DatabaseSettings target) {
        int known = Migrations.latestVersion(Database.Dialect.POSTGRESQL);
        try (Connection c = Database.dataSource(target, 10).getConnection(); Statement s = c.createStatement()) {
            int version = 0;
            try (ResultSet t = s.executeQuery("SELECT to_regclass('schema_migrations') IS NOT NULL")) {
                if (t.next() && t.getBoolean(1)) {
                    try (ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")) {
                        version = rs.next() ? rs.getInt(1) : 0;
                    }
                }
            }
            return new Remote(target.url(), true, version, known, null);
        } catch (SQLException e) {
            return new Remote(target.url(), false, 0, known, e.getMessage());
        }
    }

    /**
     * A read-only reader of a WAL database creates the {@code -wal} and {@code -shm} files when they
     * are missing, and leaves them behind. They are missing only when no server has the database
     * open (a running server keeps both), so the file is then opened as immutable: no locks, no
     * side files. When they exist, a server may be writing, so the ordinary read-only open is used
     * (it reads the WAL too, which holds the newest commits).
     */
    static String url(Path file) {
        Path wal = file.resolveSibling(file.getFileName() + "-wal");
        Path shm = file.resolveSibling(file.getFileName() + "-shm");
        if (Files.exists(wal) || Files.exists(shm)) {
            return "jdbc:sqlite:" + file;
        }
        return "jdbc:sqlite:" + file.toUri() + "?immutable=1";
    }

    private static int schemaVersion(Statement s) throws SQLException {
        try (ResultSet t = s.executeQuery("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")) {
            if (!t.next() || t.getInt(1) == 0) {
                return 0;
            }
        }
        try (ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM schema_migrations")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }
}
