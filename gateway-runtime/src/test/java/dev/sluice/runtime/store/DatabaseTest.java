package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite database: versioned migrations at open, WAL journal (SPEC DM-3, DM-4). */
class DatabaseTest {

    @TempDir
    Path dir;

    private static List<String> column(Database db, String sql) {
        return db.withConnection(c -> {
            List<String> out = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        });
    }

    @Test
    void freshDatabaseIsMigratedToTheLatestVersion_DM3() {
        try (Database db = Database.open(dir.resolve("data"))) {
            assertThat(db.schemaVersion()).isEqualTo(Migrations.latestVersion()).isEqualTo(8);
            assertThat(dir.resolve("data").resolve(Database.FILE_NAME)).isRegularFile();
            assertThat(Database.FILE_NAME).isEqualTo("sluice.db");
        }
    }

    @Test
    void freshDatabaseHasTheTablesOfEveryMigration_DM3() {
        try (Database db = Database.open(dir)) {
            assertThat(column(db, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' ORDER BY name"))
                    .containsExactly("api_keys", "combos", "domain_circuit_breakers", "exclusive_connection_leases",
                            "provider_connections", "proxy_logs", "schema_migrations", "session_account_affinity", "settings", "usage");
        }
    }

    @Test
    void theDatabaseAndItsWalFilesAreOwnerOnly_SEC3() throws Exception {
        // whatever the umask, like secret.key
        try (Database db = Database.open(dir.resolve("data"))) {
            db.withConnection(c -> c.createStatement().executeUpdate("CREATE TABLE t_perm (x INTEGER)"));
            for (String name : List.of("sluice.db", "sluice.db-wal", "sluice.db-shm")) {
                Path f = dir.resolve("data").resolve(name);
                assertThat(f).exists();
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f))).as(name).isEqualTo("rw-------");
            }
        }
    }

    @Test
    void anOlderWorldReadableDatabaseIsNarrowedToOwnerOnlyWhenOpened_SEC3() throws Exception {
        try (Database db = Database.open(dir)) {
            db.withConnection(c -> c.createStatement().executeUpdate("CREATE TABLE t_perm (x INTEGER)"));
        }
        Files.setPosixFilePermissions(dir.resolve("sluice.db"), PosixFilePermissions.fromString("rw-r--r--"));
        try (Database db = Database.open(dir)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("sluice.db")))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("sluice.db-wal")))).isEqualTo("rw-------");
        }
    }

    @Test
    void journalModeIsWal_DM3() {
        try (Database db = Database.open(dir)) {
            assertThat(db.journalMode()).isEqualTo("wal");
        }
    }

    @Test
    void reopeningDoesNotReapplyMigrations_DM3() {
        try (Database db = Database.open(dir)) {
            db.withConnection(c -> c.createStatement().executeUpdate(
                    "INSERT INTO settings(key, value, updated_at) VALUES ('k', '1', 0)"));
        }
        try (Database db = Database.open(dir)) {
            assertThat(column(db, "SELECT version FROM schema_migrations ORDER BY version")).containsExactly("1", "2", "3", "4", "5", "6", "7", "8");
            assertThat(db.schemaVersion()).isEqualTo(Migrations.latestVersion());
            assertThat(column(db, "SELECT value FROM settings WHERE key='k'")).containsExactly("1");
            assertThat(db.journalMode()).isEqualTo("wal");
        }
    }

    @Test
    void migrationVersionsAreStrictlyIncreasingFromOne_DM3() {
        int expected = 1;
        for (Migrations.Migration m : Migrations.ALL) {
            assertThat(m.version()).isEqualTo(expected++);
            assertThat(m.statements()).isNotEmpty();
        }
    }

    @Test
    void pingAnswersUntilClosed_NF5() {
        Database db = Database.open(dir);
        assertThat(db.ping()).isTrue();
        db.close();
        assertThat(db.ping()).isFalse();
    }

    @Test
    void failedTransactionIsRolledBack_DM4() {
        try (Database db = Database.open(dir)) {
            assertThatThrownBy(() -> db.inTransaction(c -> {
                c.createStatement().executeUpdate("INSERT INTO settings(key, value, updated_at) VALUES ('a', '1', 0)");
                c.createStatement().executeUpdate("INSERT INTO no_such_table VALUES (1)");
                return null;
            })).isInstanceOf(StoreException.class).hasMessageStartingWith("database error: ");

            assertThat(column(db, "SELECT key FROM settings")).isEmpty();
            db.withConnection(c -> c.createStatement().executeUpdate("INSERT INTO settings(key, value, updated_at) VALUES ('b', '2', 0)"));
            assertThat(column(db, "SELECT key FROM settings")).as("auto-commit restored").containsExactly("b");
        }
    }
}
