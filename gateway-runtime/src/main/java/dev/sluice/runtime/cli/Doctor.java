package dev.sluice.runtime.cli;

import static java.util.Objects.requireNonNull;

import dev.sluice.api.ProviderDescriptor;
import dev.sluice.runtime.config.ConfigLoader;
import dev.sluice.runtime.config.SluiceConfig;
import dev.sluice.runtime.plugin.LoadedPlugin;
import dev.sluice.runtime.plugin.PluginFailure;
import dev.sluice.runtime.plugin.PluginLoader;
import dev.sluice.runtime.plugin.PluginRegistry;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.routing.BuiltinProviders;
import dev.sluice.runtime.store.DatabaseCheck;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * {@code bin/sluice doctor}: what would stop or hobble a start, found without starting. It reads
 * the configuration the way the server does, and runs the server's own plugin loader; it opens no
 * port, creates no file or folder, and opens the database read-only.
 */
final class Doctor {

    /** The oldest Java Sluice runs on. */
    static final int MIN_JAVA = 21;
    /** The plugin loader's log lines would repeat what the plugin checks print. */
    private static final String PLUGIN_LOGGER = "dev.sluice.runtime.plugin";

    private Doctor() {
    }

    /** How a check ended. */
    enum Status {
        OK("ok"), WARN("warn"), FAIL("FAIL");

        private final String label;

        Status(String label) {
            this.label = label;
        }
    }

    /**
     * One checked fact.
     *
     * @param status how it ended
     * @param name what was checked
     * @param detail what was found, for the operator
     */
    record Check(Status status, String name, String detail) {
        Check {
            requireNonNull(status, "status is null");
            requireNonNull(name, "name is null");
            requireNonNull(detail, "detail is null");
        }

        /** The printed line: {@code ok   java: 21.0.2 …}. */
        String line() {
            return String.format("%-4s %s: %s", status.label, name, detail);
        }
    }

    /**
     * Runs every check, printing each line as it is known.
     *
     * @param home the installation folder
     * @param env the environment
     * @param pluginParent the layer plugins resolve against (the boot layer, as for the server)
     * @param out where the lines go
     * @return {@link Cli#OK}, or {@link Cli#FAILED} when a check failed
     */
    static int run(Path home, Map<String, String> env, ModuleLayer pluginParent, PrintStream out) {
        List<Check> checks = new ArrayList<>();
        checks(home, env, Runtime.version(), pluginParent, check -> {
            checks.add(check);
            out.println(check.line());
        });
        long failed = checks.stream().filter(c -> c.status() == Status.FAIL).count();
        long warnings = checks.stream().filter(c -> c.status() == Status.WARN).count();
        out.printf("doctor: %d checks, %d failed, %d warnings%n", checks.size(), failed, warnings);
        return failed > 0 ? Cli.FAILED : Cli.OK;
    }

    /**
     * Runs every check.
     *
     * @param home the installation folder
     * @param env the environment
     * @param java the Java version to judge
     * @param pluginParent the layer plugins resolve against
     * @param sink receives each check as soon as it is done
     */
    static void checks(Path home, Map<String, String> env, Runtime.Version java, ModuleLayer pluginParent, Consumer<Check> sink) {
        sink.accept(java(java));
        Path file = ConfigLoader.configFile(home, env).toAbsolutePath();
        SluiceConfig config;
        try {
            config = ConfigLoader.load(home, env);
        } catch (RuntimeException e) {
            sink.accept(new Check(Status.FAIL, "config", file + ": " + message(e)));
            for (String skipped : List.of("data dir", "database", "plugins")) {
                sink.accept(new Check(Status.WARN, skipped, "not checked: the configuration did not load"));
            }
            return;
        }
        sink.accept(new Check(Status.OK, "config", (Files.isRegularFile(file) ? file + " read" : file + " absent: built-in defaults apply")
                + " (listen " + config.host() + ":" + config.port() + ", data " + config.dataDir() + ", plugins " + config.pluginsDir() + ")"));
        sink.accept(dataDir(config.dataDir()));
        sink.accept(config.database().postgres() ? database(DatabaseCheck.inspect(config.database())) : database(config.dataDir()));
        if (config.redis().configured()) {
            sink.accept(redis(config.redis().url(), SharedState.problem(config.redis())));
        }
        plugins(config.pluginsDir(), config.strictPlugins(), pluginParent, config.pluginSettings()).forEach(sink);
    }

    static Check java(Runtime.Version version) {
        String where = " (" + System.getProperty("java.vendor", "unknown vendor") + ") at " + System.getProperty("java.home", "?");
        return version.feature() >= MIN_JAVA ? new Check(Status.OK, "java", version + where)
                : new Check(Status.FAIL, "java", version + where + ": Sluice needs Java " + MIN_JAVA + " or newer");
    }

    static Check dataDir(Path dir) {
        if (Files.isDirectory(dir)) {
            return Files.isWritable(dir) ? new Check(Status.OK, "data dir", dir + " exists and is writable")
                    : new Check(Status.FAIL, "data dir", dir + " is not writable: the server cannot store its database there");
        }
        if (Files.exists(dir)) {
            return new Check(Status.FAIL, "data dir", dir + " exists but is not a folder");
        }
        // the server creates the folder and its missing parents: the nearest existing one must be writable
        Path parent = dir.toAbsolutePath().getParent();
        while (parent != null && !Files.exists(parent)) {
            parent = parent.getParent();
        }
        if (parent == null || !Files.isDirectory(parent) || !Files.isWritable(parent)) {
            return new Check(Status.FAIL, "data dir", dir + " does not exist and cannot be created (" + parent + " is not a writable folder)");
        }
        return new Check(Status.OK, "data dir", dir + " does not exist yet: the server creates it on first start");
    }

    static Check database(Path dataDir) {
        return switch (DatabaseCheck.inspect(dataDir)) {
            case DatabaseCheck.Result.Absent a -> new Check(Status.OK, "database", "sqlite " + a.file()
                    + " does not exist yet: it will be created on first start");
            case DatabaseCheck.Result.Healthy h when h.schemaVersion() > h.knownVersion() -> new Check(Status.FAIL, "database",
                    "sqlite " + h.file() + ": integrity ok, but schema version " + h.schemaVersion() + " is newer than this release knows ("
                            + h.knownVersion() + "): it was written by a newer Sluice");
            case DatabaseCheck.Result.Healthy h -> new Check(Status.OK, "database", "sqlite " + h.file() + ": integrity ok, schema version "
                    + h.schemaVersion() + (h.schemaVersion() < h.knownVersion() ? " (migrated to " + h.knownVersion() + " on next start)" : ""));
            case DatabaseCheck.Result.Damaged d -> new Check(Status.FAIL, "database", "sqlite " + d.file() + ": " + d.problem());
        };
    }

    /** SLUICE_DATABASE_URL: the PostgreSQL database shared by several instances (its URL never shows a password). */
    static Check database(DatabaseCheck.Remote r) {
        if (!r.reachable()) {
            return new Check(Status.FAIL, "database", "postgresql " + r.url() + ": unreachable (" + r.problem() + ")");
        }
        if (r.schemaVersion() > r.knownVersion()) {
            return new Check(Status.FAIL, "database", "postgresql " + r.url() + ": reachable, but schema version " + r.schemaVersion()
                    + " is newer than this release knows (" + r.knownVersion() + "): it was written by a newer Sluice");
        }
        return new Check(Status.OK, "database", "postgresql " + r.url() + ": reachable, schema version " + r.schemaVersion()
                + (r.schemaVersion() < r.knownVersion() ? " (migrated to " + r.knownVersion() + " on next start)" : ""));
    }

    /** SLUICE_REDIS_URL: the Redis/Valkey server of the shared hot state (its URL never shows a password). */
    static Check redis(String url, String problem) {
        return problem == null ? new Check(Status.OK, "redis", url + ": reachable (shared permits, pacing, cooldowns, breakers, lockouts and provider windows)")
                : new Check(Status.FAIL, "redis", url + ": unreachable (" + problem + "); the server would start and fall back to"
                        + " each instance's own limits until it answers");
    }

    static List<Check> plugins(Path dir, boolean strict, ModuleLayer parent) {
        return plugins(dir, strict, parent, Map.of());
    }

    /**
     * The plugins as the server would have them once started: loaded, and their executors
     * created (issue 27), so that a plugin whose executor factory throws is reported as refused
     * rather than "loaded". Every refusal is a failure, strict mode or not: the server would
     * start, but the refused plugin's providers answer 503 until it is fixed.
     */
    static List<Check> plugins(Path dir, boolean strict, ModuleLayer parent, Map<String, Map<String, String>> settings) {
        if (Files.notExists(dir)) {
            return List.of(new Check(Status.OK, "plugins", "no plugins folder at " + dir + ": built-in providers only"));
        }
        Set<String> builtinIds = BuiltinProviders.ALL.stream().map(ProviderDescriptor::id).collect(Collectors.toSet());
        Logger quiet = Logger.getLogger(PLUGIN_LOGGER);
        Level before = quiet.getLevel();
        quiet.setLevel(Level.OFF);
        PluginRegistry registry;
        try {
            registry = PluginLoader.create(dir, parent, PluginLoader.class.getClassLoader()).load(builtinIds,
                    dev.sluice.runtime.combo.strategy.ComboStrategies.builtIn().names(), false);
            registry = registry.startExecutors(p -> DoctorHost.of(p.name(), settings.getOrDefault(p.name(), Map.of())), false);
        } catch (RuntimeException e) {
            return List.of(new Check(Status.FAIL, "plugins", "loading " + dir + " failed: " + message(e)));
        } finally {
            quiet.setLevel(before);
        }
        List<Check> checks = new ArrayList<>();
        for (LoadedPlugin p : registry.plugins()) {
            checks.add(new Check(Status.OK, "plugin " + p.name(), p.source() + " loaded, providers "
                    + p.providers().stream().map(ProviderDescriptor::id).toList()));
        }
        for (PluginFailure f : registry.failures()) {
            String claimed = f.providerIds().isEmpty() ? "" : "; providers " + f.providerIds().stream().sorted().toList()
                    + " answer 503 provider_unavailable until it is fixed";
            checks.add(new Check(Status.FAIL, "plugin " + f.source(), "refused: " + f.reason()
                    + (strict ? " (strict mode: the server would not start)" : " (the server starts without it" + claimed + ")")));
        }
        if (checks.isEmpty()) {
            checks.add(new Check(Status.OK, "plugins", dir + " holds no plugins: built-in providers only"));
        }
        return checks;
    }

    private static String message(RuntimeException e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        return m.replaceAll("\\s*\\R\\s*", " ");
    }
}
