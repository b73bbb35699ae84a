package dev.sluice.runtime.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.Database;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DoctorTest {

    @TempDir
    Path home;

    private final Map<String, String> env = new HashMap<>();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int doctor() {
        return Doctor.run(home, env, ModuleLayer.boot(), new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    private List<String> lines() {
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    private List<Doctor.Check> checks() {
        List<Doctor.Check> checks = new ArrayList<>();
        Doctor.checks(home, env, Runtime.version(), ModuleLayer.boot(), checks::add);
        return checks;
    }

    private String line(String name) {
        return lines().stream().filter(l -> l.substring(5).startsWith(name + ":")).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + name + " in " + lines()));
    }

    @Test
    void withSluiceRedisUrlDoctorChecksThatRedisAnswersAndShowsNoPassword_NF6() throws Exception {
        env.put("SLUICE_DATABASE_URL", "jdbc:postgresql://127.0.0.1:1/none");
        try (dev.sluice.testkit.TestRedis redis = dev.sluice.testkit.TestRedis.startOrSkip(org.junit.jupiter.api.Assumptions::abort)) {
            env.put("SLUICE_REDIS_URL", redis.url());
            doctor();
            assertThat(line("redis")).isEqualTo("ok   redis: " + redis.url() + ": reachable (shared permits, pacing, cooldowns, breakers, lockouts and provider windows)");
            out.reset();
            int port;
            try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = free.getLocalPort();
            }
            env.put("SLUICE_REDIS_URL", "redis://:hunter2-secret@127.0.0.1:" + port + "/0");
            assertThat(doctor()).isEqualTo(Cli.FAILED);
            assertThat(line("redis")).startsWith("FAIL redis: redis://127.0.0.1:" + port + "/0: unreachable (");
            assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("hunter2-secret");
        }
    }

    @Test
    void aFreshInstallationPassesAndDoctorCreatesNothing() {
        assertThat(doctor()).as(lines().toString()).isEqualTo(Cli.OK);
        assertThat(line("java")).startsWith("ok   java: " + Runtime.version());
        assertThat(line("config")).startsWith("ok   config: " + home.resolve("conf/sluice.yaml") + " absent: built-in defaults apply")
                .contains("listen 127.0.0.1:20128");
        assertThat(line("data dir")).isEqualTo("ok   data dir: " + home.resolve("data") + " does not exist yet: the server creates it on first start");
        assertThat(line("database")).isEqualTo("ok   database: sqlite " + home.resolve("data/sluice.db")
                + " does not exist yet: it will be created on first start");
        assertThat(line("plugins")).isEqualTo("ok   plugins: no plugins folder at " + home.resolve("plugins") + ": built-in providers only");
        assertThat(lines().getLast()).isEqualTo("doctor: 5 checks, 0 failed, 0 warnings");
        assertThat(home.resolve("data")).doesNotExist();
    }

    @Test
    void aHealthyDatabaseIsCheckedReadOnlyAndLeftByteForByteUnchanged() throws Exception {
        // characters that a file: URI must escape
        env.put("SLUICE_DATA_DIR", "data #1 100%");
        Path data = home.resolve("data #1 100%");
        Database.open(data).close();
        Map<String, String> before = digests(data);

        assertThat(doctor()).as(lines().toString()).isEqualTo(Cli.OK);

        assertThat(line("data dir")).isEqualTo("ok   data dir: " + data + " exists and is writable");
        assertThat(line("database")).startsWith("ok   database: sqlite " + data.resolve("sluice.db") + ": integrity ok, schema version ");
        assertThat(digests(data)).isEqualTo(before);
    }

    @Test
    void aFileThatIsNotADatabaseFailsTheDatabaseCheck() throws IOException {
        Path data = Files.createDirectories(home.resolve("data"));
        Files.writeString(data.resolve("sluice.db"), "this is not an SQLite database, it is a text file long enough to be read");

        assertThat(doctor()).isEqualTo(Cli.FAILED);

        assertThat(line("database")).startsWith("FAIL database: sqlite " + data.resolve("sluice.db") + ": ").contains("not a database");
        assertThat(lines().getLast()).isEqualTo("doctor: 5 checks, 1 failed, 0 warnings");
    }

    @Test
    void aDatabaseWithDamagedPagesFailsTheDatabaseCheck() throws IOException {
        Path data = home.resolve("data");
        Database.open(data).close();
        Path db = data.resolve("sluice.db");
        long size = Files.size(db);
        assertThat(size).as("a migrated database has several pages").isGreaterThan(8192);
        try (RandomAccessFile file = new RandomAccessFile(db.toFile(), "rw")) {
            // every page after the first (the header page stays valid, so the file still opens)
            byte[] garbage = new byte[(int) size - 4096];
            java.util.Arrays.fill(garbage, (byte) 0x5A);
            file.seek(4096);
            file.write(garbage);
        }

        assertThat(doctor()).isEqualTo(Cli.FAILED);

        assertThat(line("database")).startsWith("FAIL database: sqlite " + db + ": ");
    }

    @Test
    void aConfigFileThatDoesNotParseFailsAndTheChecksThatNeedItAreNotRun() throws IOException {
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/sluice.yaml"), "server:\n  port: [unclosed\n  host: :::\n");

        assertThat(doctor()).isEqualTo(Cli.FAILED);

        assertThat(line("config")).startsWith("FAIL config: " + home.resolve("conf/sluice.yaml") + ": ");
        assertThat(line("data dir")).isEqualTo("warn data dir: not checked: the configuration did not load");
        assertThat(line("database")).startsWith("warn database: not checked");
        assertThat(line("plugins")).startsWith("warn plugins: not checked");
    }

    @Test
    void anInvalidSettingFailsTheConfigCheckNamingIt() {
        env.put("SLUICE_PORT", "abc");
        assertThat(doctor()).isEqualTo(Cli.FAILED);
        assertThat(line("config")).contains("SLUICE_PORT").contains("abc");
    }

    @Test
    void theConfigFileIsResolvedLikeTheServerDoes() throws IOException {
        Path file = Files.writeString(home.resolve("elsewhere.yaml"), "storage:\n  dataDir: state\n");
        env.put("SLUICE_CONFIG", file.toString());
        assertThat(doctor()).as(lines().toString()).isEqualTo(Cli.OK);
        assertThat(line("config")).startsWith("ok   config: " + file + " read").contains("data " + home.resolve("state"));

        env.put("SLUICE_CONFIG", home.resolve("missing.yaml").toString());
        out.reset();
        assertThat(doctor()).isEqualTo(Cli.FAILED);
        assertThat(line("config")).contains("SLUICE_CONFIG points to").contains("missing.yaml");
    }

    @Test
    void aDataDirThatIsAFileFails() throws IOException {
        Files.writeString(home.resolve("data"), "oops");
        assertThat(checks()).filteredOn(c -> c.name().equals("data dir")).singleElement()
                .satisfies(c -> assertThat(c.status()).isEqualTo(Doctor.Status.FAIL))
                .satisfies(c -> assertThat(c.detail()).endsWith("exists but is not a folder"));
    }

    @Test
    void aRefusedPluginFailsWithItsReasonAndClaimedProvidersInStrictModeOrNot_issue27() throws IOException {
        Files.createDirectories(home.resolve("plugins"));
        Files.writeString(home.resolve("plugins/broken-1.0.jar"), "not a jar");

        assertThat(doctor()).as(lines().toString()).isEqualTo(Cli.FAILED);
        assertThat(line("plugin broken-1.0.jar")).startsWith("FAIL plugin broken-1.0.jar: refused: broken-1.0.jar is not a readable JAR")
                .endsWith("(the server starts without it; providers [broken] answer 503 provider_unavailable until it is fixed)");

        env.put("SLUICE_STRICT_PLUGINS", "true");
        out.reset();
        assertThat(doctor()).isEqualTo(Cli.FAILED);
        assertThat(line("plugin broken-1.0.jar")).startsWith("FAIL plugin broken-1.0.jar: refused: ")
                .endsWith("(strict mode: the server would not start)");
    }

    @Test
    void anEmptyPluginsFolderIsFine() throws IOException {
        Files.createDirectories(home.resolve("plugins"));
        assertThat(doctor()).isEqualTo(Cli.OK);
        assertThat(line("plugins")).isEqualTo("ok   plugins: " + home.resolve("plugins") + " holds no plugins: built-in providers only");
    }

    @Test
    void aJavaOlderThan21Fails() {
        assertThat(Doctor.java(Runtime.Version.parse("17.0.9")).status()).isEqualTo(Doctor.Status.FAIL);
        assertThat(Doctor.java(Runtime.Version.parse("17.0.9")).detail()).endsWith("Sluice needs Java 21 or newer");
        assertThat(Doctor.java(Runtime.Version.parse("21")).status()).isEqualTo(Doctor.Status.OK);
    }

    /** SHA-256 of every file in a folder, by name. */
    private static Map<String, String> digests(Path dir) throws IOException, NoSuchAlgorithmException {
        Map<String, String> out = new HashMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                out.put(f.getFileName().toString(),
                        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f))));
            }
        }
        return out;
    }
}
