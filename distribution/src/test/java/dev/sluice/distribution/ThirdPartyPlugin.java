package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * Builds a provider plugin the way a third party would (SPEC PA-1): its source, compiled with
 * {@code javac} against the {@code sluice-api} JAR of the distribution alone, packed with
 * {@code jar}. Module {@code acme.plugin} contributes provider {@code acme} with model
 * {@code acme-1}, served by the built-in OpenAI-compatible executor.
 */
final class ThirdPartyPlugin {

    static final String PROVIDER = "acme";
    static final String MODEL = "acme-1";

    private static final String MODULE_INFO = """
            module acme.plugin {
                requires sluice.api;
                provides dev.sluice.api.ProviderPlugin with acme.AcmePlugin;
            }
            """;

    private static final String PLUGIN = """
            package acme;

            import dev.sluice.api.ModelInfo;
            import dev.sluice.api.ProviderClass;
            import dev.sluice.api.ProviderDescriptor;
            import dev.sluice.api.ProviderPlugin;
            import java.util.List;

            public final class AcmePlugin implements ProviderPlugin {
                @Override
                public String name() {
                    return "acme";
                }

                @Override
                public int spiVersion() {
                    return ProviderPlugin.SPI_VERSION;
                }

                @Override
                public List<ProviderDescriptor> providers() {
                    return List.of(ProviderDescriptor.openAiCompatible("acme", "Acme", ProviderClass.APIKEY,
                            "https://api.acme.invalid/v1", List.of(ModelInfo.chat("acme-1"))));
                }
            }
            """;

    private ThirdPartyPlugin() {
    }

    /**
     * Compiles and packs the plugin.
     *
     * @param home the unpacked distribution, whose {@code lib/sluice-api-*.jar} is the only input
     * @param workDir scratch folder for sources and classes
     * @param jar the JAR to write
     */
    static void build(Path home, Path workDir, Path jar) {
        try {
            Path src = workDir.resolve("acme-src");
            Path classes = workDir.resolve("acme-classes");
            Files.createDirectories(src.resolve("acme"));
            Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
            Files.writeString(src.resolve("acme").resolve("AcmePlugin.java"), PLUGIN);

            run("javac", "--release", "21", "--module-path", apiJar(home).toString(), "-d", classes.toString(),
                    src.resolve("module-info.java").toString(), src.resolve("acme").resolve("AcmePlugin.java").toString());
            run("jar", "--create", "--file", jar.toString(), "-C", classes.toString(), ".");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path apiJar(Path home) throws IOException {
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            return lib.filter(p -> p.getFileName().toString().matches("sluice-api-.*\\.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no lib/sluice-api-*.jar in " + home));
        }
    }

    private static void run(String tool, String... args) {
        ToolProvider provider = ToolProvider.findFirst(tool)
                .orElseThrow(() -> new AssertionError(tool + " is not available: run the tests on a JDK"));
        StringWriter out = new StringWriter();
        try (PrintWriter pw = new PrintWriter(out)) {
            int rc = provider.run(pw, pw, args);
            pw.flush();
            assertThat(rc).as("%s %s\n%s", tool, String.join(" ", args), out).isZero();
        }
    }
}
