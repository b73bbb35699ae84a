package dev.sluice.runtime.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import dev.sluice.api.rules.EgressBucketing;
import dev.sluice.api.rules.ErrorRule;
import dev.sluice.api.rules.RestatementRule;
import java.io.IOException;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader against real plugin JARs built by {@link PluginJars}, loaded from a temporary
 * plugins folder into layers on top of the boot layer, as in production.
 */
class PluginLoaderTest {

    private static final Set<String> BUILT_IN = Set.of("openai", "glm", "minimax");

    @TempDir
    Path plugins;

    @TempDir
    Path scratch;

    private PluginJars jars;

    @BeforeEach
    void setUp() {
        jars = new PluginJars(scratch);
    }

    private PluginRegistry load() {
        return loader(plugins).load(BUILT_IN, false);
    }

    private static PluginLoader loader(Path dir) {
        return PluginLoader.create(dir, ModuleLayer.boot(), PluginLoaderTest.class.getClassLoader());
    }

    private void validPlugin(String file, String module, String name, String... providerIds) {
        jars.plugin(module, name).openAiProviders(providerIds).writeTo(plugins.resolve(file));
    }

    @Test
    void validSingleJarPluginIsLoadedIntoItsOwnLayer_SH2() {
        jars.plugin("acme.plugin", "acme")
                .providers("List.of(ProviderDescriptor.openAiCompatible(\"acme-open\", \"Acme open\", ProviderClass.APIKEY,"
                        + " \"https://open.acme.test/v1\", List.of(ModelInfo.chat(\"a-1\"))),"
                        + " new ProviderDescriptor(\"acme\", \"Acme\", ProviderClass.OAUTH, \"https://acme.test\", \"acme-messages\","
                        + " List.of(), false, true, true))")
                .executors("acme-messages")
                .restatementRules("List.of(new RestatementRule(\"busy\", \"acme\", Set.of(400), 429, List.of(\"busy\"), List.of(), 5000))")
                .errorRules("List.of(new ErrorRule(\"quota\", \"acme\", 429, Map.of(), List.of(\"quota\"),"
                        + " FailureReason.QUOTA_EXHAUSTED, LockScope.CONNECTION, null))")
                .egressBucketing("List.of(new EgressBucketing() {"
                        + " public String name() { return \"acme-ip\"; }"
                        + " public Set<String> providers() { return Set.of(\"acme\", \"acme-open\"); } })")
                .writeTo(plugins.resolve("acme.jar"));

        PluginRegistry registry = load();

        assertThat(registry.failures()).isEmpty();
        assertThat(registry.plugins()).singleElement().satisfies(plugin -> {
            assertThat(plugin.name()).isEqualTo("acme");
            assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
            assertThat(plugin.source()).isEqualTo("acme.jar");
            assertThat(plugin.providers()).extracting(ProviderDescriptor::id).containsExactly("acme-open", "acme");
            assertThat(plugin.executors()).extracting(ExecutorFactory::name).containsExactly("acme-messages");
            assertThat(plugin.restatementRules()).extracting(RestatementRule::id).containsExactly("busy");
            assertThat(plugin.errorRules()).extracting(ErrorRule::id).containsExactly("quota");
            assertThat(plugin.egressBucketing()).extracting(EgressBucketing::name).containsExactly("acme-ip");
        });
        assertThat(registry.descriptor("acme")).get().extracting(ProviderDescriptor::executor).isEqualTo("acme-messages");
        assertThat(registry.ownerOf("acme-open")).get().extracting(LoadedPlugin::name).isEqualTo("acme");
        assertThat(registry.restatementRules()).hasSize(1);
        assertThat(registry.errorRules()).hasSize(1);
        assertThat(registry.egressBucketing()).hasSize(1);
        assertThat(registry.descriptor("openai")).isEmpty();

        ExecutorFactory factory = registry.executorFactory("acme-messages").orElseThrow();
        Module module = factory.getClass().getModule();
        assertThat(module.getName()).isEqualTo("acme.plugin");
        assertThat(module.getLayer()).isNotSameAs(ModuleLayer.boot());
        assertThat(module.getLayer().parents()).containsExactly(ModuleLayer.boot());
        assertThat(ModuleLayer.boot().findModule("acme.plugin")).isEmpty();
    }

    @Test
    void eachSourceGetsItsOwnLayer_SH2() {
        jars.plugin("one.plugin", "one").executors("one").writeTo(plugins.resolve("one.jar"));
        jars.plugin("two.plugin", "two").executors("two").writeTo(plugins.resolve("two.jar"));

        PluginRegistry registry = load();

        ModuleLayer one = registry.executorFactory("one").orElseThrow().getClass().getModule().getLayer();
        ModuleLayer two = registry.executorFactory("two").orElseThrow().getClass().getModule().getLayer();
        assertThat(one).isNotSameAs(two);
        assertThat(one.findModule("two.plugin")).isEmpty();
        assertThat(two.findModule("one.plugin")).isEmpty();
    }

    @Test
    void folderPluginLoadsItsPrivateDependencyInItsOwnLayer_SH2() {
        Path folder = plugins.resolve("beta");
        // A plain JAR: private dependencies may be automatic modules inside a folder.
        Path util = jars.compile(folder.resolve("beta-util.jar"), Map.of("beta/util/Names.java",
                "package beta.util; public final class Names { public static String display() { return \"Beta (from util)\"; } }"),
                List.of());
        jars.plugin("beta.plugin", "beta")
                .requires("beta.util", util)
                .providers("List.of(ProviderDescriptor.openAiCompatible(\"beta\", beta.util.Names.display(), ProviderClass.APIKEY,"
                        + " \"https://beta.test/v1\", List.of()))")
                .executors("beta")
                .writeTo(folder.resolve("beta-plugin.jar"));

        PluginRegistry registry = load();

        assertThat(registry.failures()).isEmpty();
        assertThat(registry.plugins()).singleElement().extracting(LoadedPlugin::source).isEqualTo("beta");
        assertThat(registry.descriptor("beta")).get().extracting(ProviderDescriptor::displayName).isEqualTo("Beta (from util)");
        ModuleLayer layer = registry.executorFactory("beta").orElseThrow().getClass().getModule().getLayer();
        assertThat(layer.findModule("beta.util")).get().extracting(m -> m.getLayer()).isSameAs(layer);
        assertThat(ModuleLayer.boot().findModule("beta.util")).isEmpty();
    }

    @Test
    void automaticModuleInAFolderIsNotTakenForAPlugin_SH2() {
        Path folder = plugins.resolve("mixed");
        // A plain JAR that carries a services file: Java would make it a provider, Sluice must not.
        jars.plugin("mixed.stowaway", "stowaway").openAiProviders("stowaway").writeWithoutModuleInfo(folder.resolve("a-stowaway.jar"));
        validPlugin("mixed/b-plugin.jar", "mixed.plugin", "mixed", "mixed");

        PluginRegistry registry = load();

        assertThat(registry.failures()).isEmpty();
        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("mixed");
        assertThat(registry.descriptor("stowaway")).isEmpty();
    }

    @Test
    void pluginsOfTheParentLayerAreNotLoadedAgainFromEachChild_SH2() {
        Path parentJar = jars.plugin("parent.plugin", "parent").openAiProviders("parent").writeTo(scratch.resolve("parent.jar"));
        ClassLoader loader = PluginLoaderTest.class.getClassLoader();
        Configuration configuration = ModuleLayer.boot().configuration()
                .resolveAndBind(ModuleFinder.of(parentJar), ModuleFinder.of(), Set.of("parent.plugin"));
        ModuleLayer parent = ModuleLayer.boot().defineModulesWithOneLoader(configuration, loader);
        validPlugin("child.jar", "child.plugin", "child", "child");

        PluginRegistry registry = PluginLoader.create(plugins, parent, loader).load(BUILT_IN, false);

        assertThat(registry.failures()).isEmpty();
        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("child");
    }

    @Test
    void twoFoldersBundlingDifferentVersionsOfOneLibraryEachSeeTheirOwn_SH2() {
        for (String version : List.of("1", "2")) {
            Path folder = plugins.resolve("v" + version);
            Path lib = jars.compile(folder.resolve("shared-lib.jar"), Map.of(
                    "module-info.java", "module shared.lib { exports shared.lib; }",
                    "shared/lib/Version.java", "package shared.lib; public final class Version {"
                            + " public static String value() { return \"" + version + "\"; } }"), List.of());
            jars.plugin("v" + version + ".plugin", "v" + version)
                    .requires("shared.lib", lib)
                    .providers("List.of(ProviderDescriptor.openAiCompatible(\"v" + version + "\", \"lib \" + shared.lib.Version.value(),"
                            + " ProviderClass.APIKEY, \"https://v.test/v1\", List.of()))")
                    .writeTo(folder.resolve("plugin.jar"));
        }

        PluginRegistry registry = load();

        assertThat(registry.failures()).isEmpty();
        assertThat(registry.descriptor("v1")).get().extracting(ProviderDescriptor::displayName).isEqualTo("lib 1");
        assertThat(registry.descriptor("v2")).get().extracting(ProviderDescriptor::displayName).isEqualTo("lib 2");
    }

    @Test
    void corruptJarIsSkippedWithItsFileNameAndTheOthersStillLoad_SH2() throws IOException {
        Files.writeString(plugins.resolve("broken.jar"), "this is not a zip file");
        validPlugin("zeta.jar", "zeta.plugin", "zeta", "zeta");

        PluginRegistry registry = load();

        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("broken.jar");
            assertThat(failure.reason()).contains("broken.jar is not a readable JAR");
        });
        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("zeta");
    }

    @Test
    void jarWithoutModuleInfoIsRefusedAsNotAnExplicitModule_SH2() {
        jars.plugin("plain.plugin", "plain").openAiProviders("plain").writeWithoutModuleInfo(plugins.resolve("plain-plugin.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("plain-plugin.jar");
            assertThat(failure.reason()).contains("is not an explicit module").contains("module-info");
        });
    }

    @Test
    void folderWhosePluginJarIsAutomaticIsRefused_SH2() {
        Path folder = plugins.resolve("auto");
        jars.plugin("auto.plugin", "auto").openAiProviders("auto").writeWithoutModuleInfo(folder.resolve("auto-plugin.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("auto");
            assertThat(failure.reason()).contains("no explicit module in the folder declares 'provides dev.sluice.api.ProviderPlugin");
        });
    }

    @Test
    void folderBundlingTheSpiModuleIsRefused_SH2() throws IOException {
        Path folder = plugins.resolve("greedy");
        jars.plugin("greedy.plugin", "greedy").openAiProviders("greedy").writeTo(folder.resolve("greedy-plugin.jar"));
        Files.copy(jars.apiJar(), folder.resolve("sluice-api-0.1.0.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("greedy");
            assertThat(failure.reason()).contains("bundles its own copy of the SPI module sluice.api")
                    .contains("greedy/sluice-api-0.1.0.jar").contains("mark sluice-api as provided");
        });
    }

    @Test
    void jarShadingTheSpiPackagesIsRefused_SH2() {
        Path plugin = jars.plugin("shaded.plugin", "shaded").openAiProviders("shaded").writeTo(scratch.resolve("shaded.jar"));
        Map<String, byte[]> entries = PluginJars.entriesOf(plugin);
        PluginJars.entriesOf(jars.apiJar()).forEach((name, bytes) -> {
            if (name.startsWith("dev/")) {
                entries.put(name, bytes);
            }
        });
        PluginJars.writeJar(plugins.resolve("shaded.jar"), entries);

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("shaded.jar");
            assertThat(failure.reason()).contains("bundles its own copy of the SPI module sluice.api")
                    .contains("dev.sluice.api").contains("mark sluice-api as provided");
        });
    }

    @Test
    void moduleThatProvidesNoPluginIsSkipped_SH2() {
        jars.plugin("quiet.plugin", "quiet").withoutProvides().writeTo(plugins.resolve("quiet.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("quiet.jar");
            assertThat(failure.reason()).contains("provides no dev.sluice.api.ProviderPlugin");
        });
    }

    @Test
    void folderWithoutJarsIsSkipped_SH2() throws IOException {
        Files.createDirectories(plugins.resolve("empty"));
        Files.writeString(plugins.resolve("README.txt"), "not a plugin");

        PluginRegistry registry = load();

        assertThat(registry.failures()).containsExactly(new PluginFailure("empty", "folder contains no JAR", Set.of("empty"), true));
    }

    @Test
    void incompatibleSpiVersionIsRefusedNamingBothVersions_PA3() {
        jars.plugin("future.plugin", "future").spiVersion("999").openAiProviders("future").writeTo(plugins.resolve("future.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("future.jar");
            assertThat(failure.reason()).contains("plugin 'future'").contains("SPI version 999")
                    .contains("supports SPI version " + ProviderPlugin.SPI_VERSION);
        });
    }

    @Test
    void pluginThrowingFromProvidersIsSkippedWhole_SH2() {
        jars.plugin("boom.plugin", "boom").executors("boom")
                .providers("fail(\"upstream catalogue unavailable\")")
                .writeTo(plugins.resolve("boom.jar"));
        validPlugin("calm.jar", "calm.plugin", "calm", "calm");

        PluginRegistry registry = load();

        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("calm");
        assertThat(registry.executorFactory("boom")).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("boom.jar");
            assertThat(failure.reason()).contains("plugin 'boom' threw from providers()")
                    .contains("IllegalStateException: upstream catalogue unavailable");
        });
    }

    @Test
    void pluginThrowingFromItsConstructorIsSkipped_SH2() {
        jars.plugin("ctor.plugin", "ctor").constructor("fail(\"no config\");").writeTo(plugins.resolve("ctor.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason()).contains("plugin class ctor.plugin.TestPlugin threw from its constructor")
                        .contains("no config"));
    }

    @Test
    void pluginThrowingFromNameIsSkipped_SH2() {
        jars.plugin("nameless.plugin", null).nameExpression("fail(\"who am I\")").writeTo(plugins.resolve("nameless.jar"));

        PluginRegistry registry = load();

        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason()).contains("plugin class nameless.plugin.TestPlugin threw from name()").contains("who am I"));
    }

    @Test
    void blankPluginNameIsRefused_SH2() {
        jars.plugin("blank.plugin", " ").writeTo(plugins.resolve("blank.jar"));

        PluginRegistry registry = load();

        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason()).contains("blank.plugin.TestPlugin returned a blank name()"));
    }

    @Test
    void nullListsAndBlankNamesAreRefusedTogether_SH2() {
        jars.plugin("sloppy.plugin", "sloppy")
                .providers("null")
                .executors("")
                .errorRules("Arrays.asList((ErrorRule) null)")
                .writeTo(plugins.resolve("sloppy.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason()).startsWith("plugin 'sloppy' contributes invalid values: ")
                        .contains("providers() returned null")
                        .contains("has a blank name()")
                        .contains("errorRules() returned a null element"));
    }

    @Test
    void descriptorNamingAnUnknownExecutorIsRefused_SH2() {
        jars.plugin("lost.plugin", "lost")
                .providers("List.of(new ProviderDescriptor(\"lost\", \"Lost\", ProviderClass.APIKEY, \"https://lost.test\","
                        + " \"lost-messages\", List.of(), false, false, false))")
                .executors("lost-chat")
                .writeTo(plugins.resolve("lost.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason()).contains("provider 'lost' names executor 'lost-messages'")
                        .contains("'openai-compatible'").contains("[lost-chat]"));
    }

    @Test
    void duplicateProviderIdRefusesTheLaterPluginWholeNamingBothOrigins_SH2() {
        // Written in reverse order: the file name, not the creation or listing order, decides.
        validPlugin("b-second.jar", "second.plugin", "second", "other", "shared");
        validPlugin("a-first.jar", "first.plugin", "first", "shared");

        PluginRegistry registry = load();

        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("first");
        assertThat(registry.ownerOf("shared")).get().extracting(LoadedPlugin::source).isEqualTo("a-first.jar");
        assertThat(registry.descriptor("other")).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("b-second.jar");
            assertThat(failure.reason()).isEqualTo("plugin 'second' (b-second.jar): provider id 'shared' is already claimed by"
                    + " plugin 'first' (a-first.jar)");
        });
    }

    @Test
    void duplicatePluginNameAndExecutorNameAreRefused_SH2() {
        jars.plugin("x1.plugin", "twin").executors("twin-exec").writeTo(plugins.resolve("x1.jar"));
        jars.plugin("x2.plugin", "twin").executors("twin-exec").writeTo(plugins.resolve("x2.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).extracting(LoadedPlugin::source).containsExactly("x1.jar");
        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason())
                        .contains("plugin name 'twin' is already claimed by plugin 'twin' (x1.jar)")
                        .contains("executor name 'twin-exec' is already claimed by plugin 'twin' (x1.jar)"));
    }

    @Test
    void providerIdOfABuiltinProviderIsRefused_SH2() {
        validPlugin("impostor.jar", "impostor.plugin", "impostor", "openai");

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason()).isEqualTo("plugin 'impostor' (impostor.jar): provider id 'openai' is already claimed"
                        + " by built-in"));
    }

    @Test
    void executorNamedLikeTheBuiltinExecutorIsRefused_SH2() {
        jars.plugin("shadow.plugin", "shadow").executors("openai-compatible").writeTo(plugins.resolve("shadow.jar"));

        PluginRegistry registry = load();

        assertThat(registry.failures()).singleElement().satisfies(failure ->
                assertThat(failure.reason()).contains("executor name 'openai-compatible' is already claimed by built-in"));
    }

    @Test
    void rulesAreListedInFileNameOrder_SH2() {
        for (String name : List.of("c", "a", "b")) {
            jars.plugin(name + ".plugin", name)
                    .errorRules("List.of(new ErrorRule(\"r\", \"" + name + "\", 429, Map.of(), List.of(),"
                            + " FailureReason.RATE_LIMIT_EXCEEDED, LockScope.MODEL, null))")
                    .writeTo(plugins.resolve(name + ".jar"));
        }

        PluginRegistry registry = load();

        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("a", "b", "c");
        assertThat(registry.errorRules()).extracting(ErrorRule::provider).containsExactly("a", "b", "c");
    }

    @Test
    void strictModeThrowsListingEveryFailure_SH2() throws IOException {
        Files.writeString(plugins.resolve("broken.jar"), "garbage");
        jars.plugin("future.plugin", "future").spiVersion("999").writeTo(plugins.resolve("future.jar"));
        validPlugin("good.jar", "good.plugin", "good", "good");

        assertThatThrownBy(() -> loader(plugins).load(BUILT_IN, true))
                .isInstanceOfSatisfying(PluginLoadException.class, e -> {
                    assertThat(e.failures()).extracting(PluginFailure::source).containsExactly("broken.jar", "future.jar");
                    assertThat(e.getMessage()).startsWith("2 plugin sources failed to load (strict mode):")
                            .contains("broken.jar: broken.jar is not a readable JAR")
                            .contains("future.jar: plugin 'future' was built for SPI version 999");
                });
    }

    @Test
    void strictModeWithOnlyValidPluginsLoadsThem_SH2() {
        validPlugin("good.jar", "good.plugin", "good", "good");

        assertThat(loader(plugins).load(BUILT_IN, true).plugins()).extracting(LoadedPlugin::name).containsExactly("good");
    }

    @Test
    void missingPluginsFolderGivesAnEmptyRegistryEvenWhenStrict_SH2() {
        PluginRegistry registry = loader(plugins.resolve("absent")).load(BUILT_IN, true);

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.failures()).isEmpty();
        assertThat(registry.executorFactory("anything")).isEmpty();
    }

    @Test
    void executorFactoryThatThrowsRefusesThePluginWithItsCauseChainAndProviders_SH2() {
        // the guide's mistake: an invalid ~regex in a static final rule fails the class's initialiser
        jars.plugin("regex.plugin", "regex")
                .providers("List.of(ProviderDescriptor.openAiCompatible(\"regex\", \"Regex\", ProviderClass.APIKEY,"
                        + " \"https://regex.test/v1\", List.of()).withExecutor(\"regex-exec\"))")
                .executorsExpression("List.of(new ExecutorFactory() {"
                        + " public String name() { return \"regex-exec\"; }"
                        + " public ProviderExecutor create(HostContext host) { return Holder.BAD.length() > 0 ? null : null; } })")
                .extraSource("regex/plugin/Holder.java", "package regex.plugin; final class Holder {"
                        + " static final String BAD = java.util.regex.Pattern.compile(\"(unclosed\").pattern(); }")
                .writeTo(plugins.resolve("regex.jar"));
        validPlugin("calm.jar", "calm.plugin", "calm", "calm");

        PluginRegistry registry = load().startExecutors(p -> null, false);

        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("calm");
        assertThat(registry.executor("regex-exec")).isEmpty();
        assertThat(registry.descriptor("regex")).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("regex.jar");
            assertThat(failure.reason()).contains("plugin 'regex' (regex.jar): executor 'regex-exec' failed to start:"
                    + " ExceptionInInitializerError caused by PatternSyntaxException: Unclosed group");
            assertThat(failure.providerIds()).containsExactly("regex");
        });
        assertThat(registry.refusedProviders()).containsOnlyKeys("regex");
    }

    @Test
    void executorFactoryReturningNullRefusesThePluginAndStrictModeStops_SH2() {
        jars.plugin("nullish.plugin", "nullish")
                .providers("List.of(ProviderDescriptor.openAiCompatible(\"nullish\", \"N\", ProviderClass.APIKEY,"
                        + " \"https://n.test/v1\", List.of()).withExecutor(\"n-exec\"))")
                .executorsExpression("List.of(new ExecutorFactory() { public String name() { return \"n-exec\"; }"
                        + " public ProviderExecutor create(HostContext host) { return null; } })")
                .writeTo(plugins.resolve("null.jar"));

        PluginRegistry loaded = load();

        assertThat(loaded.startExecutors(p -> null, false).failures()).singleElement()
                .satisfies(f -> assertThat(f.reason()).contains("executor 'n-exec': ExecutorFactory.create returned null"));
        assertThatThrownBy(() -> loaded.startExecutors(p -> null, true)).isInstanceOf(PluginLoadException.class)
                .hasMessageContaining("null.jar: plugin 'nullish' (null.jar): executor 'n-exec'");
    }

    @Test
    void startedExecutorsAreFoundByName_SH2() {
        jars.plugin("ok.plugin", "ok")
                .providers("List.of(ProviderDescriptor.openAiCompatible(\"ok\", \"Ok\", ProviderClass.APIKEY,"
                        + " \"https://ok.test/v1\", List.of()).withExecutor(\"ok-exec\"))")
                .executorsExpression("List.of(new ExecutorFactory() { public String name() { return \"ok-exec\"; }"
                        + " public ProviderExecutor create(HostContext host) { return call -> null; } })")
                .writeTo(plugins.resolve("ok.jar"));

        PluginRegistry registry = load().startExecutors(p -> null, true);

        assertThat(registry.failures()).isEmpty();
        assertThat(registry.executor("ok-exec")).isPresent();
        assertThat(registry.refusedProviders()).isEmpty();
    }

    @Test
    void constructorFailureFromAStaticInitialiserNamesTheRootCause_SH2() {
        jars.plugin("init.plugin", "init").constructor("Holder.touch();")
                .extraSource("init/plugin/Holder.java", "package init.plugin; final class Holder {"
                        + " static final java.util.regex.Pattern P = java.util.regex.Pattern.compile(\"[a-\");"
                        + " static void touch() { } }")
                .writeTo(plugins.resolve("init.jar"));

        PluginRegistry registry = load();

        assertThat(registry.failures()).singleElement().satisfies(failure -> assertThat(failure.reason())
                .contains("threw from its constructor: ExceptionInInitializerError caused by PatternSyntaxException:"));
    }

    @Test
    void twoVersionsOfOnePluginNameTheFileToRemove_SH2() {
        validPlugin("acme-1.0.0.jar", "acme.plugin", "acme", "acme");
        validPlugin("acme-1.0.1.jar", "acme.plugin", "acme", "acme");

        PluginRegistry registry = load();

        assertThat(registry.plugins()).extracting(LoadedPlugin::source).containsExactly("acme-1.0.0.jar");
        assertThat(registry.refusedProviders()).isEmpty();
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.source()).isEqualTo("acme-1.0.1.jar");
            // issue 27: the file to remove comes first
            assertThat(failure.reason()).startsWith("remove acme-1.0.0.jar from plugins/ to use acme-1.0.1.jar (or remove acme-1.0.1.jar"
                    + " to keep acme-1.0.0.jar) and restart: two copies of plugin 'acme' are in plugins/, acme-1.0.0.jar is loaded and"
                    + " acme-1.0.1.jar is ignored;");
        });
    }

    @Test
    void refusedPluginsProvidersAreRecordedButNotThoseOwnedByAnother_SH2() {
        jars.plugin("future.plugin", "future").spiVersion("999").openAiProviders("future").writeTo(plugins.resolve("future.jar"));
        validPlugin("a-first.jar", "first.plugin", "first", "shared");
        validPlugin("b-second.jar", "second.plugin", "second", "other", "shared");

        PluginRegistry registry = load();

        assertThat(registry.refusedProviders()).containsOnlyKeys("future", "other");
        assertThat(registry.refusedProviders().get("future").source()).isEqualTo("future.jar");
    }

    @Test
    void aComboStrategyNamedLikeABuiltinOrAnEarlierPluginsRefusesThePluginWhole_CO2() {
        jars.plugin("a.plugin", "a").comboStrategies("spread").openAiProviders("a-prov").writeTo(plugins.resolve("a.jar"));
        jars.plugin("b.plugin", "b").comboStrategies("spread").writeTo(plugins.resolve("b.jar"));
        jars.plugin("c.plugin", "c").comboStrategies("priority").writeTo(plugins.resolve("c.jar"));

        PluginRegistry registry = loader(plugins).load(BUILT_IN, Set.of("priority", "weighted"), false);

        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("a");
        assertThat(registry.comboStrategies()).extracting(dev.sluice.api.combo.ComboStrategy::name).containsExactly("spread");
        assertThat(registry.failures()).extracting(PluginFailure::reason).containsExactly(
                "plugin 'b' (b.jar): combo strategy name 'spread' is already claimed by plugin 'a' (a.jar)",
                "plugin 'c' (c.jar): combo strategy name 'priority' is already claimed by built-in");
    }

    @Test
    void pluginWithAnInvalidErrorRuleRegexKeepsItsProviderIdsClaimed_issue27() {
        jars.plugin("zenith.plugin", "zenith").openAiProviders("zenith", "zenith-eu")
                .errorRules("List.of(new ErrorRule(\"bad\", \"zenith\", 429, Map.of(\"x-why\", \"~(unclosed\"), List.of(),"
                        + " FailureReason.RATE_LIMIT_EXCEEDED, LockScope.CONNECTION, null))")
                .writeTo(plugins.resolve("zenith-1.0.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.refusedProviders()).containsOnlyKeys("zenith", "zenith-eu");
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.reason()).contains("plugin 'zenith' threw from errorRules()").contains("not a valid regular expression");
            assertThat(failure.providersGuessed()).isFalse();
        });
    }

    @Test
    void pluginThrowingFromAnyMethodAfterProvidersKeepsItsProviderIdsClaimed_issue27() {
        jars.plugin("late.plugin", "late").openAiProviders("late-a").executorsExpression("fail(\"no executors today\")")
                .writeTo(plugins.resolve("late.jar"));
        jars.plugin("later.plugin", "later").openAiProviders("later-a").comboStrategies("")
                .writeTo(plugins.resolve("later.jar"));

        PluginRegistry registry = load();

        assertThat(registry.plugins()).isEmpty();
        assertThat(registry.refusedProviders()).containsOnlyKeys("late-a", "later-a");
    }

    @Test
    void moduleThatProvidesNoPluginClaimsTheIdsItsFileAndModuleNamesSuggest_issue27() {
        jars.plugin("com.example.zenith.plugin", "zenith").openAiProviders("zenith").withoutProvides()
                .writeTo(plugins.resolve("sluice-plugin-zenith-2.1.0-SNAPSHOT.jar"));

        PluginRegistry registry = load();

        assertThat(registry.refusedProviders()).containsOnlyKeys("sluice-plugin-zenith", "zenith");
        assertThat(registry.failures()).singleElement().satisfies(failure -> {
            assertThat(failure.reason()).contains("provides no dev.sluice.api.ProviderPlugin");
            assertThat(failure.providersGuessed()).isTrue();
        });
    }

    @Test
    void bundledSpiRefusalsClaimTheirNamesButNeverABuiltinOrALoadedPluginsId_issue27() throws IOException {
        Path folder = plugins.resolve("greedy");
        jars.plugin("greedy.plugin", "greedy").openAiProviders("greedy").writeTo(folder.resolve("greedy-plugin.jar"));
        Files.copy(jars.apiJar(), folder.resolve("sluice-api-0.1.0.jar"));
        Path shaded = jars.plugin("shady.plugin", "shady").openAiProviders("shady").writeTo(scratch.resolve("shady.jar"));
        Map<String, byte[]> entries = PluginJars.entriesOf(shaded);
        PluginJars.entriesOf(jars.apiJar()).forEach((name, bytes) -> {
            if (name.startsWith("dev/")) {
                entries.put(name, bytes);
            }
        });
        PluginJars.writeJar(plugins.resolve("openai-shady-1.0.jar"), entries);
        validPlugin("shady.jar", "fine.plugin", "fine", "shady");

        PluginRegistry registry = load();

        assertThat(registry.plugins()).extracting(LoadedPlugin::name).containsExactly("fine");
        // "openai" is built in and "shady" is served by the loaded plugin: neither is taken away
        assertThat(registry.refusedProviders()).containsOnlyKeys("greedy", "openai-shady");
        assertThat(registry.summary()).startsWith("1 loaded [fine], 2 refused [greedy (providers [greedy])");
    }

    @Test
    void nameClaimsStripVersionsAndPluginWords_issue27() {
        assertThat(NameClaims.guess("zenith-1.2.0.jar", List.of(), Set.of())).containsExactly("zenith");
        assertThat(NameClaims.guess("zenith-plugin-v2.jar", List.of("com.example.zenith"), Set.of())).containsExactly("zenith", "zenith-plugin");
        assertThat(NameClaims.guess("Glm.jar", List.of("sluice.plugin.glm"), Set.of("glm"))).isEmpty();
        assertThat(NameClaims.guess("plugin.jar", List.of("plugin"), Set.of())).containsExactly("plugin");
    }

    @Test
    void emptyRegistryAnswersNothing_SH2() {
        PluginRegistry empty = PluginRegistry.empty();

        assertThat(empty.plugins()).isEmpty();
        assertThat(empty.failures()).isEmpty();
        assertThat(empty.descriptor("openai")).isEmpty();
        assertThat(empty.ownerOf("openai")).isEmpty();
        assertThat(empty.restatementRules()).isEmpty();
        assertThat(empty.errorRules()).isEmpty();
        assertThat(empty.egressBucketing()).isEmpty();
    }
}
