package dev.sluice.runtime.plugin;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Builds real plugin JARs for the loader tests: Java sources are compiled against the sluice-api
 * the tests run with and packaged with {@link JarOutputStream}. javac is reached through
 * {@link java.util.spi.ToolProvider} (in java.base) rather than {@code javax.tools}, because the
 * tests are patched into {@code sluice.runtime}, which does not read {@code java.compiler}.
 */
public final class PluginJars {

    private static final ToolProvider JAVAC = ToolProvider.findFirst("javac")
            .orElseThrow(() -> new IllegalStateException("no javac in this JDK"));

    private final Path scratch;
    private int builds;

    public PluginJars(Path scratch) {
        this.scratch = scratch;
    }

    /** Where the SPI module the runtime runs with lives: a JAR, or target/classes in a reactor build. */
    static Path apiLocation() {
        URI location = ModuleLayer.boot().configuration().findModule(PluginLayers.SPI_MODULE)
                .flatMap(m -> m.reference().location())
                .orElseThrow(() -> new IllegalStateException("sluice.api is not in the boot layer: run the tests on the module path"));
        return Path.of(location);
    }

    /** A test plugin module, to be configured and then written with {@link TestPlugin#writeTo}. */
    TestPlugin plugin(String module, String name) {
        return new TestPlugin(module, name);
    }

    /**
     * Compiles sources (file path to content) and packages the classes into a JAR.
     *
     * @param jar where to write the JAR
     * @param sources e.g. {@code module-info.java} and {@code acme/Foo.java}; without a
     *     module-info the JAR is a plain (automatic-module) JAR
     * @param modulePath JARs the sources compile against, besides sluice.api
     * @return the JAR
     */
    public Path compile(Path jar, Map<String, String> sources, List<Path> modulePath) {
        Path build = scratch.resolve("build-" + ++builds);
        Path src = build.resolve("src");
        Path classes = build.resolve("classes");
        try {
            List<String> args = new ArrayList<>(List.of("--release", "21", "-proc:none", "-implicit:none", "-nowarn",
                    "-encoding", "UTF-8", "-d", classes.toString()));
            List<Path> path = new ArrayList<>(modulePath);
            path.add(apiLocation());
            String joined = path.stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator));
            args.add(sources.containsKey("module-info.java") ? "--module-path" : "--class-path");
            args.add(joined);
            for (Map.Entry<String, String> source : sources.entrySet()) {
                Path file = src.resolve(source.getKey());
                Files.createDirectories(file.getParent());
                Files.writeString(file, source.getValue());
                args.add(file.toString());
            }
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            try (PrintWriter out = new PrintWriter(log, true, StandardCharsets.UTF_8)) {
                int exit = JAVAC.run(out, out, args.toArray(String[]::new));
                if (exit != 0) {
                    throw new IllegalStateException("javac failed (" + exit + "):\n" + log.toString(StandardCharsets.UTF_8));
                }
            }
            return writeJar(jar, entriesOf(classes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The SPI module as one JAR, so that a test can bundle a copy of it into a plugin. */
    Path apiJar() {
        Path location = apiLocation();
        if (Files.isRegularFile(location)) {
            return location;
        }
        return writeJar(scratch.resolve("sluice-api-copy.jar"), entriesOf(location));
    }

    /** Every entry of a JAR or a classes folder, by entry name. */
    static Map<String, byte[]> entriesOf(Path jarOrFolder) {
        Map<String, byte[]> entries = new TreeMap<>();
        try {
            if (Files.isDirectory(jarOrFolder)) {
                try (Stream<Path> files = Files.walk(jarOrFolder)) {
                    for (Path file : files.filter(Files::isRegularFile).toList()) {
                        entries.put(jarOrFolder.relativize(file).toString().replace('\\', '/'), Files.readAllBytes(file));
                    }
                }
            } else {
                try (JarFile jar = new JarFile(jarOrFolder.toFile())) {
                    for (JarEntry entry : jar.stream().filter(e -> !e.isDirectory()).toList()) {
                        entries.put(entry.getName(), jar.getInputStream(entry).readAllBytes());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return entries;
    }

    static Path writeJar(Path jar, Map<String, byte[]> entries) {
        try {
            Files.createDirectories(jar.getParent());
            try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
                for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
                    out.putNextEntry(new JarEntry(entry.getKey()));
                    out.write(entry.getValue());
                    out.closeEntry();
                }
            }
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A plugin module with one {@code ProviderPlugin} class, {@code <module>.TestPlugin}. Each
     * setter replaces the Java expression one SPI method returns; unset methods return an empty
     * list, as the SPI defaults do.
     */
    final class TestPlugin {
        private final String module;
        private String nameExpression;
        private String spiVersionExpression = "ProviderPlugin.SPI_VERSION";
        private final Map<String, String> methods = new LinkedHashMap<>();
        private final List<String> requires = new ArrayList<>();
        private final List<Path> modulePath = new ArrayList<>();
        private String provides;
        private String constructorBody = "";
        private final Map<String, String> extraSources = new LinkedHashMap<>();

        private TestPlugin(String module, String name) {
            this.module = module;
            this.nameExpression = name == null ? "null" : '"' + name + '"';
            this.provides = "provides dev.sluice.api.ProviderPlugin with " + module + ".TestPlugin;";
        }

        TestPlugin nameExpression(String expression) {
            nameExpression = expression;
            return this;
        }

        TestPlugin spiVersion(String expression) {
            spiVersionExpression = expression;
            return this;
        }

        /** Providers served by the built-in OpenAI-compatible executor. */
        TestPlugin openAiProviders(String... ids) {
            return providers(Stream.of(ids)
                    .map(id -> "ProviderDescriptor.openAiCompatible(\"" + id + "\", \"" + id + "\", ProviderClass.APIKEY, \"https://"
                            + id + ".test/v1\", List.of())")
                    .collect(Collectors.joining(", ", "List.of(", ")")));
        }

        TestPlugin providers(String expression) {
            methods.put("List<ProviderDescriptor> providers()", expression);
            return this;
        }

        /** Executor factories with these names; their executors are never created in these tests. */
        TestPlugin executors(String... names) {
            return executorsExpression(Stream.of(names).map(n -> "executor(\"" + n + "\")")
                    .collect(Collectors.joining(", ", "List.of(", ")")));
        }

        TestPlugin executorsExpression(String expression) {
            methods.put("List<ExecutorFactory> executors()", expression);
            return this;
        }

        TestPlugin restatementRules(String expression) {
            methods.put("List<RestatementRule> restatementRules()", expression);
            return this;
        }

        TestPlugin errorRules(String expression) {
            methods.put("List<ErrorRule> errorRules()", expression);
            return this;
        }

        /** Combo strategies named so, each ordering targets as given. */
        TestPlugin comboStrategies(String... names) {
            methods.put("List<dev.sluice.api.combo.ComboStrategy> comboStrategies()", Stream.of(names)
                    .map(n -> "strategy(\"" + n + "\")").collect(Collectors.joining(", ", "List.of(", ")")));
            return this;
        }

        TestPlugin egressBucketing(String expression) {
            methods.put("List<EgressBucketing> egressBucketing()", expression);
            return this;
        }

        /** A private dependency: {@code requires} in module-info plus the JAR to compile against. */
        TestPlugin requires(String moduleName, Path jar) {
            requires.add(moduleName);
            modulePath.add(jar);
            return this;
        }

        /** Statements run by the plugin's constructor, e.g. to make it throw. */
        TestPlugin constructor(String body) {
            constructorBody = body;
            return this;
        }

        /** Another source file of the plugin module, e.g. a class with a failing static initialiser. */
        TestPlugin extraSource(String path, String source) {
            extraSources.put(path, source);
            return this;
        }

        TestPlugin withoutProvides() {
            provides = "";
            return this;
        }

        Path writeTo(Path jar) {
            return compile(jar, sources(true), modulePath);
        }

        /** The same plugin as a plain JAR: no module-info, only a META-INF/services file. */
        Path writeWithoutModuleInfo(Path jar) {
            Path plain = compile(scratch.resolve("plain-" + builds + ".jar"), sources(false), modulePath);
            Map<String, byte[]> entries = new TreeMap<>(entriesOf(plain));
            entries.put("META-INF/services/dev.sluice.api.ProviderPlugin",
                    (module + ".TestPlugin\n").getBytes(StandardCharsets.UTF_8));
            return writeJar(jar, entries);
        }

        private Map<String, String> sources(boolean withModuleInfo) {
            Map<String, String> sources = new LinkedHashMap<>();
            if (withModuleInfo) {
                sources.put("module-info.java", "module " + module + " {\n    requires sluice.api;\n"
                        + requires.stream().map(r -> "    requires " + r + ";\n").collect(Collectors.joining())
                        + "    " + provides + "\n}\n");
            }
            StringBuilder plugin = new StringBuilder()
                    .append("package ").append(module).append(";\n\n")
                    .append("import dev.sluice.api.*;\nimport dev.sluice.api.rules.*;\nimport java.util.*;\n\n")
                    .append("public final class TestPlugin implements ProviderPlugin {\n")
                    .append("    public TestPlugin() { ").append(constructorBody).append(" }\n")
                    .append("    @Override public String name() { return ").append(nameExpression).append("; }\n")
                    .append("    @Override public int spiVersion() { return ").append(spiVersionExpression).append("; }\n");
            methods.forEach((signature, expression) -> plugin.append("    @Override public ").append(signature)
                    .append(" { return ").append(expression).append("; }\n"));
            plugin.append("""
                        static <T> T fail(String message) {
                            throw new IllegalStateException(message);
                        }

                        static dev.sluice.api.combo.ComboStrategy strategy(String name) {
                            return new dev.sluice.api.combo.ComboStrategy() {
                                @Override public String name() { return name; }
                                @Override public List<dev.sluice.api.combo.ComboTargetView> order(dev.sluice.api.combo.ComboContext c,
                                        List<dev.sluice.api.combo.ComboTargetView> eligible) { return eligible; }
                            };
                        }

                        static ExecutorFactory executor(String name) {
                            return new ExecutorFactory() {
                                @Override public String name() { return name; }
                                @Override public ProviderExecutor create(HostContext host) { throw new UnsupportedOperationException(); }
                            };
                        }
                    }
                    """);
            sources.put(module.replace('.', '/') + "/TestPlugin.java", plugin.toString());
            sources.putAll(extraSources);
            return sources;
        }
    }
}
