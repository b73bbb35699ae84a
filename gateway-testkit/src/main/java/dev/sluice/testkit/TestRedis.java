package dev.sluice.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A throwaway Redis (or Valkey) server for tests: the installed {@code redis-server} (or
 * {@code valkey-server}) on a free loopback port, in a temporary folder, without persistence.
 * {@link #stop()} kills it (a test of an unreachable server calls it mid-test); {@link #close()}
 * also deletes the folder.
 *
 * <p>When no binary is found the tests that need one are skipped with a message, unless
 * {@code SLUICE_REQUIRE_REDIS=1} (CI sets it): then they fail.
 */
public final class TestRedis implements AutoCloseable {

    /** Set to {@code 1} to make a missing Redis a failure instead of a skipped test. */
    public static final String REQUIRE_ENV = "SLUICE_REQUIRE_REDIS";

    private final Path dir;
    private final int port;
    private final Process process;

    private TestRedis(Path dir, int port, Process process) {
        this.dir = dir;
        this.port = port;
        this.process = process;
    }

    /**
     * The server binary: {@code SLUICE_REDIS_SERVER}, else {@code redis-server} or {@code valkey-server} on the PATH.
     *
     * @return the binary, or empty when none is installed
     */
    public static Optional<Path> binary() {
        String configured = System.getenv("SLUICE_REDIS_SERVER");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(Files::isExecutable);
        }
        for (String name : List.of("redis-server", "valkey-server")) {
            for (String entry : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, name))) {
                    return Optional.of(Path.of(entry, name));
                }
            }
        }
        return Optional.empty();
    }

    /** @return true when {@code SLUICE_REQUIRE_REDIS=1} */
    public static boolean required() {
        return "1".equals(System.getenv(REQUIRE_ENV));
    }

    /**
     * Starts a server, or skips the test when none is installed (fails instead when it is {@link #required()}).
     *
     * @param skip aborts the test with a message (e.g. JUnit's {@code Assumptions::abort})
     * @return the running server
     */
    public static TestRedis startOrSkip(Consumer<String> skip) {
        Optional<Path> bin = binary();
        if (bin.isEmpty()) {
            String why = "redis-server (or valkey-server) not found on the PATH or SLUICE_REDIS_SERVER";
            if (required()) {
                throw new IllegalStateException(why + ", and " + REQUIRE_ENV + "=1 says it must be there");
            }
            skip.accept(why + ": Redis tests skipped (install redis-server, or set " + REQUIRE_ENV + "=1 to make this a failure)");
            throw new IllegalStateException(why);
        }
        return start(bin.get());
    }

    /**
     * Starts a server from a binary.
     *
     * @param binary {@code redis-server} or {@code valkey-server}
     * @return the running server, answering on {@link #port()}
     */
    public static TestRedis start(Path binary) {
        try {
            return start(binary, freePort());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A restart as clients see it: this server is killed (its folder deleted) and a fresh one, empty,
     * answers on the same port.
     *
     * @return the new server
     */
    public TestRedis restart() {
        close();
        return start(binary().orElseThrow(), port);
    }

    private static TestRedis start(Path binary, int port) {
        try {
            Path dir = Files.createTempDirectory("sluice-redis");
            Process p = new ProcessBuilder(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no", "--protected-mode", "yes")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
            TestRedis r = new TestRedis(dir, port, p);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!r.answers()) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    String log = Files.exists(dir.resolve("server.log")) ? Files.readString(dir.resolve("server.log")) : "";
                    r.close();
                    throw new IllegalStateException("redis-server did not start on port " + port + ": " + log);
                }
                p.waitFor(20, TimeUnit.MILLISECONDS);
            }
            return r;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** @return true when something accepts connections on the port and answers PING */
    public boolean answers() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            s.setSoTimeout(500);
            s.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            byte[] b = new byte[7];
            int n = s.getInputStream().read(b);
            return n >= 5 && new String(b, 0, n, java.nio.charset.StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    /** @return the port on 127.0.0.1 */
    public int port() {
        return port;
    }

    /** @return {@code redis://127.0.0.1:<port>/0} */
    public String url() {
        return "redis://127.0.0.1:" + port + "/0";
    }

    /**
     * Freezes the server ({@code SIGSTOP}): connections stay open and new ones are accepted by the
     * kernel, but nothing answers — a partition as a client sees it, with no reset to notice.
     */
    public void freeze() {
        signal("-STOP");
    }

    /** Lets a {@link #freeze() frozen} server run again ({@code SIGCONT}). */
    public void thaw() {
        signal("-CONT");
    }

    private void signal(String sig) {
        try {
            Process kill = new ProcessBuilder("kill", sig, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + sig + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Kills the server at once (an outage); idempotent. */
    public void stop() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // a temp folder left behind is not worth failing a test for
        }
    }
}
