package dev.sluice.runtime.cli;

import dev.sluice.runtime.config.ConfigLoader;
import java.io.PrintStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Runs every {@code bin/sluice} command but {@code serve}, which {@code Main} keeps. Returns the
 * exit status rather than exiting, so that tests run commands in-process.
 */
public final class Cli {

    /** Exit status: done. */
    public static final int OK = 0;
    /** Exit status: a check failed, the server answered an error, or no server answered. */
    public static final int FAILED = 1;
    /** Exit status: bad arguments or a missing setting; nothing was done. */
    public static final int USAGE = 2;

    /** Env: the server the admin commands talk to. */
    public static final String ENV_URL = "SLUICE_URL";
    /** The server's default address (SluiceConfig's default host and port). */
    public static final String DEFAULT_URL = "http://127.0.0.1:20128";

    private Cli() {
    }

    /**
     * Runs a command.
     *
     * @param command any command but {@link Command.Serve}
     * @param home the installation folder
     * @param env the environment
     * @param out standard output
     * @param err standard error
     * @return the exit status: {@link #OK}, {@link #FAILED} or {@link #USAGE}
     */
    public static int run(Command command, Path home, Map<String, String> env, PrintStream out, PrintStream err) {
        return run(command, home, env, System.in, out, err);
    }

    /**
     * Runs a command reading stdin from {@code in} ({@code bin/sluice login} reads a pasted code).
     *
     * @param command the parsed command line
     * @param home the installation folder
     * @param env the environment
     * @param in standard input
     * @param out standard output
     * @param err standard error
     * @return the exit status
     */
    public static int run(Command command, Path home, Map<String, String> env, java.io.InputStream in, PrintStream out, PrintStream err) {
        return switch (command) {
            case Command.Serve s -> throw new IllegalArgumentException("serve is started by Main, not run as a command");
            case Command.Help h -> {
                out.println(CommandLine.USAGE);
                yield OK;
            }
            case Command.Invalid i -> {
                err.println("sluice: " + i.problem());
                err.println();
                err.println(CommandLine.USAGE);
                yield USAGE;
            }
            case Command.Doctor d -> Doctor.run(home, env, ModuleLayer.boot(), out);
            case Command.RotateKey r -> KeyRotation.run(home, env, out, err);
            case Command.Admin a -> admin(a, env, in, out, err);
        };
    }

    private static int admin(Command.Admin command, Map<String, String> env, java.io.InputStream in, PrintStream out, PrintStream err) {
        String key = env.get(ConfigLoader.ENV_ADMIN_KEY);
        if (key == null || key.isBlank()) {
            err.println("sluice: set " + ConfigLoader.ENV_ADMIN_KEY + " to the server's admin key (or a client key with the admin"
                    + " scope); this command talks to the admin API of the server at " + ENV_URL + " (default " + DEFAULT_URL + ")");
            return USAGE;
        }
        String url = env.get(ENV_URL);
        URI base = serverUrl(url == null || url.isBlank() ? DEFAULT_URL : url.strip());
        if (base == null) {
            err.println("sluice: " + ENV_URL + " must be an http or https URL such as " + DEFAULT_URL + ", got '" + url + "'");
            return USAGE;
        }
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(AdminClient.CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build()) {
            java.io.BufferedReader stdin = new java.io.BufferedReader(new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8));
            return new AdminCommands(new AdminClient(base, key.strip(), http), stdin, env, out, err, d -> Thread.sleep(d)).run(command);
        }
    }

    /** An absolute http(s) URL with a host, or null. */
    static URI serverUrl(String value) {
        try {
            URI u = new URI(value);
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            boolean plain = u.getRawQuery() == null && u.getRawFragment() == null;
            return (scheme.equals("http") || scheme.equals("https")) && u.getHost() != null && plain ? u : null;
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
