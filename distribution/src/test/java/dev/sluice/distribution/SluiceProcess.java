package dev.sluice.distribution;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Sluice server started the way an operator starts it: {@code bin/sluice} of an unpacked zip,
 * in a separate process. Its output (stdout and stderr merged) is drained continuously, kept for
 * failure messages, and watched for the {@code Sluice listening on http://HOST:PORT} line
 * (SPEC SH-5).
 *
 * <p>{@link #close()} always ends the process: SIGTERM, then SIGKILL after 10 s.
 */
final class SluiceProcess implements AutoCloseable {

    static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern LISTENING = Pattern.compile("Sluice listening on (http://\\S+?:\\d+)\\s*$");

    private final Process process;
    private final StringBuffer output = new StringBuffer();
    private final CompletableFuture<URI> listening = new CompletableFuture<>();
    private final Thread drainer;

    private SluiceProcess(Process process) {
        this.process = process;
        this.drainer = Thread.ofPlatform().daemon().name("sluice-output-" + process.pid()).start(this::drain);
    }

    /** @return the server JVM's pid ({@code bin/sluice} {@code exec}s java) */
    long pid() {
        return process.pid();
    }

    /**
     * Starts {@code bin/sluice} of {@code home} with the given environment added to this JVM's,
     * and waits until it listens.
     *
     * @param home the unpacked Sluice home
     * @param env variables to set (for example {@code SLUICE_PORT=0})
     * @return the running server
     * @throws AssertionError with the server output when it does not come up in 60 s
     */
    static SluiceProcess start(Path home, Map<String, String> env) {
        Path script = home.resolve("bin").resolve("sluice");
        ProcessBuilder builder = new ProcessBuilder(script.toString())
                // Another working directory than the home: the script must find itself.
                .directory(home.getParent().toFile())
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(devNull()));
        Map<String, String> environment = builder.environment();
        // The server under test must not see settings of the developer's shell.
        environment.keySet().removeIf(k -> k.startsWith("SLUICE_"));
        // The JDK running the tests is a JDK 21+: make bin/sluice use it.
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        environment.putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + script, e);
        }
        SluiceProcess sluice = new SluiceProcess(process);
        sluice.awaitListening();
        return sluice;
    }

    /**
     * The usual environment of a test server: a free port, the given data folder and admin key.
     *
     * @param dataDir the data folder
     * @param adminKey the admin key
     * @return a mutable map
     */
    static Map<String, String> env(Path dataDir, String adminKey) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("SLUICE_PORT", "0");
        env.put("SLUICE_DATA_DIR", dataDir.toString());
        env.put("SLUICE_ADMIN_KEY", adminKey);
        return env;
    }

    private static java.io.File devNull() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private void drain() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                output.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    listening.complete(URI.create(m.group(1)));
                }
            }
        } catch (IOException e) {
            output.append("[output read failed: ").append(e).append("]\n");
        } finally {
            listening.completeExceptionally(new IllegalStateException("the server's output ended"));
        }
    }

    private void awaitListening() {
        try {
            listening.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new AssertionError("interrupted while waiting for Sluice to start", e);
        } catch (ExecutionException | TimeoutException e) {
            close();
            String why = e instanceof TimeoutException ? "did not print 'Sluice listening on ...' within " + START_TIMEOUT.toSeconds() + " s"
                    : "exited before listening (exit code " + exitCodeOrNone() + ")";
            throw new AssertionError("Sluice " + why + ". Output:\n" + output());
        }
    }

    private String exitCodeOrNone() {
        try {
            return process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "none";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "none";
        }
    }

    /** The base URL printed by the server, e.g. {@code http://127.0.0.1:41234}. */
    URI baseUrl() {
        return listening.join();
    }

    /** Everything the server printed so far. */
    String output() {
        // Let the drainer catch up with what the process already wrote.
        if (!process.isAlive()) {
            try {
                drainer.join(Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return output.toString();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Sends a signal to the server's JVM ({@code bin/sluice} {@code exec}s java: the pid is the
     * JVM's), e.g. {@code STOP} and {@code CONT} for a stop-the-world pause (issue 37), {@code TERM}
     * for a stop whose end the test watches through {@link #onExit()}.
     *
     * @param name the signal's name without {@code SIG}
     */
    void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return completes when the server's process has exited */
    CompletableFuture<Process> onExit() {
        return process.onExit();
    }

    /**
     * A graceful stop: SIGTERM, and SIGKILL if the server is still running after 10 s.
     *
     * @return the exit code
     */
    int stop() {
        process.destroy();
        return awaitExit();
    }

    /**
     * {@code kill -9}: the server gets no chance to flush or close anything.
     *
     * @return the exit code
     */
    int kill() {
        process.destroyForcibly();
        return awaitExit();
    }

    private int awaitExit() {
        try {
            if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            drainer.join(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** Stops the server if it still runs; safe to call more than once. */
    @Override
    public void close() {
        if (process.isAlive()) {
            stop();
        }
    }
}
