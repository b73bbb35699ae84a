package dev.sluice.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL server for tests: {@code initdb} and {@code pg_ctl} of the installed
 * binaries, in a temporary folder, on a free loopback port, with a random superuser password
 * (scram-sha-256 over TCP; no Unix socket). Run as {@code postgres} through {@code runuser} when the
 * tests run as root ({@code initdb} refuses root). {@link #close()} stops it ({@code -m immediate})
 * and deletes the folder.
 *
 * <p>When no binaries are found the tests that need one are skipped with a message, unless
 * {@code SLUICE_REQUIRE_POSTGRES=1} (CI sets it): then they fail.
 */
public final class TestPostgres implements AutoCloseable {

    /** Set to {@code 1} to make a missing PostgreSQL a failure instead of a skipped test. */
    public static final String REQUIRE_ENV = "SLUICE_REQUIRE_POSTGRES";
    /** The superuser of the test server. */
    public static final String USER = "sluice";

    private final Path bin;
    private final Path dir;
    private final int port;
    private final String password;
    private final boolean asPostgresUser;

    private TestPostgres(Path bin, Path dir, int port, String password, boolean asPostgresUser) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.password = password;
        this.asPostgresUser = asPostgresUser;
    }

    /**
     * The folder of {@code initdb} and {@code pg_ctl}: {@code SLUICE_POSTGRES_BIN}, else the newest
     * {@code /usr/lib/postgresql/<version>/bin}, else the folder of {@code initdb} on the PATH.
     *
     * @return the folder, or empty when PostgreSQL is not installed
     */
    public static Optional<Path> binaries() {
        String configured = System.getenv("SLUICE_POSTGRES_BIN");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(p -> Files.isExecutable(p.resolve("initdb")));
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparingInt(TestPostgres::major));
                if (newest.isPresent()) {
                    return newest;
                }
            } catch (IOException e) {
                // fall through to the PATH
            }
        }
        for (String entry : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, "initdb")) && Files.isExecutable(Path.of(entry, "pg_ctl"))) {
                return Optional.of(Path.of(entry));
            }
        }
        return Optional.empty();
    }

    private static int major(Path bin) {
        try {
            return Integer.parseInt(bin.getParent().getFileName().toString());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** @return true when {@code SLUICE_REQUIRE_POSTGRES=1} */
    public static boolean required() {
        return "1".equals(System.getenv(REQUIRE_ENV));
    }

    /**
     * Starts a server, or skips the test when PostgreSQL is not installed (fails instead when it
     * is {@link #required()}).
     *
     * @param skip aborts the test with a message (e.g. JUnit's {@code Assumptions::abort})
     * @return the running server
     */
    public static TestPostgres startOrSkip(Consumer<String> skip) {
        Optional<Path> bin = binaries();
        if (bin.isEmpty()) {
            String why = "PostgreSQL binaries (initdb, pg_ctl) not found under /usr/lib/postgresql/*/bin, SLUICE_POSTGRES_BIN or the PATH";
            if (required()) {
                throw new IllegalStateException(why + ", and " + REQUIRE_ENV + "=1 says they must be there");
            }
            skip.accept(why + ": PostgreSQL tests skipped (install postgresql, or set " + REQUIRE_ENV + "=1 to make this a failure)");
            throw new IllegalStateException(why);
        }
        return start(bin.get());
    }

    /**
     * Initialises and starts a server with the given binaries.
     *
     * @param bin the folder of {@code initdb} and {@code pg_ctl}
     * @return the running server
     */
    public static TestPostgres start(Path bin) {
        boolean root = "root".equals(System.getProperty("user.name"));
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        Path dir;
        try {
            dir = Files.createTempDirectory("sluice-pg-");
            Files.writeString(dir.resolve("pw"), password, StandardCharsets.US_ASCII);
            if (root) {
                UserPrincipal postgres = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
                Files.setOwner(dir, postgres);
                Files.setOwner(dir.resolve("pw"), postgres);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare a PostgreSQL folder (as root the user 'postgres' must exist)", e);
        }
        TestPostgres pg = null;
        try {
            run(root, List.of(bin.resolve("initdb").toString(), "-D", dir.resolve("data").toString(), "-U", USER, "--pwfile="
                    + dir.resolve("pw"), "--auth=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"), dir);
            Path data = dir.resolve("data");
            Files.writeString(data.resolve("postgresql.conf"), "\ninclude_if_exists = 'sluice.conf'\n", StandardCharsets.US_ASCII,
                    java.nio.file.StandardOpenOption.APPEND);
            for (int attempt = 1; ; attempt++) {
                int port = freePort();
                // in a file, so that a restart keeps the port; readable by the server's user
                Files.writeString(data.resolve("sluice.conf"), "listen_addresses = '127.0.0.1'\nport = " + port
                        + "\nunix_socket_directories = ''\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                        + "max_connections = 200\n", StandardCharsets.US_ASCII);
                pg = new TestPostgres(bin, dir, port, password, root);
                try {
                    pg.restart();
                    return pg;
                } catch (IllegalStateException e) {
                    if (attempt >= 3) {
                        throw e;
                    }
                }
            }
        } catch (IOException e) {
            if (pg != null) {
                pg.close();
            } else {
                delete(dir);
            }
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            if (pg != null) {
                pg.close();
            } else {
                delete(dir);
            }
            throw e;
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void run(boolean asPostgres, List<String> command, Path dir) {
        List<String> full = new ArrayList<>();
        if (asPostgres) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        try {
            Process p = new ProcessBuilder(full).directory(dir.toFile()).redirectErrorStream(true).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                String log = Files.exists(dir.resolve("log")) && Files.isReadable(dir.resolve("log"))
                        ? Files.readString(dir.resolve("log")) : "";
                throw new IllegalStateException(String.join(" ", command).replaceAll("pwfile=\\S+", "pwfile=…") + " failed:\n"
                        + new String(out, StandardCharsets.UTF_8) + log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** @return the port on 127.0.0.1 */
    public int port() {
        return port;
    }

    /** @return the superuser's password */
    public String password() {
        return password;
    }

    /**
     * The JDBC URL of a database, without credentials.
     *
     * @param database the database name
     * @return {@code jdbc:postgresql://127.0.0.1:<port>/<database>}
     */
    public String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
    }

    /**
     * Creates a fresh database.
     *
     * @param name a name (letters, digits, underscores)
     * @return its JDBC URL, without credentials
     */
    public String createDatabase(String name) {
        if (!name.toLowerCase(Locale.ROOT).matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("database name must be letters, digits and underscores: " + name);
        }
        execute("postgres", "CREATE DATABASE " + name);
        return url(name);
    }

    /**
     * Runs one statement as the superuser.
     *
     * @param database the database
     * @param sql the statement
     */
    public void execute(String database, String sql) {
        try (Connection c = DriverManager.getConnection(url(database), USER, password); Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    /** Stops the server at once (its clients see their connections drop), keeping its data: {@link #restart} brings it back. */
    public void stop() {
        run(asPostgresUser, List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate", "-w",
                "stop"), dir);
    }

    /** Starts a stopped server again, on the same port. */
    public void restart() {
        run(asPostgresUser, List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-l",
                dir.resolve("log").toString(), "-w", "-t", "60", "start"), dir);
    }

    /** Stops the server at once and deletes its folder. */
    @Override
    public void close() {
        try {
            stop();
        } catch (RuntimeException e) {
            // not running (stopped, or it failed to start): the folder still goes
        }
        delete(dir);
    }

    private static void delete(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp folder left behind is not worth failing a test for
        }
    }
}
