package dev.sluice.distribution;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noMethods;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC SH-3 boundaries and CONVENTIONS module hygiene, checked on the classes and module
 * descriptors that ship in the zip's {@code lib/} and {@code plugins/}.
 */
class ArchitectureIT {

    static JavaClasses shipped;

    @BeforeAll
    static void importShippedClasses() {
        shipped = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.sluice.api", "dev.sluice.runtime", "dev.sluice.plugin", "dev.sluice.toolkit");
        assertThat(shipped.containPackage("dev.sluice.api")).isTrue();
        assertThat(shipped.containPackage("dev.sluice.runtime.routing")).isTrue();
        assertThat(shipped.containPackage("dev.sluice.plugin.agentrouter")).isTrue();
    }

    @Test
    void theSpiDependsOnNothingButTheJdk_SH3() {
        classes().that().resideInAPackage("dev.sluice.api..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.sluice.api..")
                .check(shipped);
    }

    @Test
    void pluginsDependOnlyOnTheSpiTheToolkitAndTheJdk_SH3() {
        classes().that().resideInAPackage("dev.sluice.plugin..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.sluice.api..", "dev.sluice.plugin..",
                        "dev.sluice.toolkit..")
                .check(shipped);
        slices().matching("dev.sluice.plugin.(*)..").should().notDependOnEachOther().check(shipped);
        classes().that().resideInAPackage("dev.sluice.toolkit..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.sluice.toolkit..")
                .check(shipped);
    }

    @Test
    void wireCodeLivesOnceInTheToolkit_issue17() {
        // JSON parsers and SSE readers that disagree about limits are two sets of bugs
        noClasses().that().resideInAPackage("dev.sluice.plugin..")
                .should().haveSimpleNameEndingWith("JsonReader").orShould().haveSimpleName("Json")
                .orShould().haveSimpleName("JsonException").orShould().haveSimpleNameEndingWith("LineReader")
                .orShould().haveSimpleName("SseEventReader")
                .check(shipped);
        noClasses().that().resideInAPackage("dev.sluice.runtime..").should().haveSimpleName("SseLineReader").check(shipped);
    }

    @Test
    void theResilienceAndRoutingCoreDoesNotDependOnTheWebLayer_SH3() {
        noClasses().that().resideInAnyPackage("dev.sluice.runtime.resilience..", "dev.sluice.runtime.routing..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.sluice.runtime.http..", "io.helidon..")
                .check(shipped);
    }

    @Test
    void clientProtocolsAreWireCodeAndTheHttpLayerReachesRoutingOnlyThroughItsEntryPoint_issue35() {
        // a client protocol reads requests and writes answers: no web server, no http layer, testable without either
        noClasses().that().resideInAPackage("dev.sluice.runtime.protocol..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.sluice.runtime.http..", "io.helidon..")
                .check(shipped);
        // the endpoints hand a parsed request to RequestRouter and render its Outcome; the attempt loop is not theirs
        noClasses().that().resideInAPackage("dev.sluice.runtime.http..")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.sluice.runtime.routing.Dispatcher")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.sluice.runtime.routing.AttemptRunner")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.sluice.runtime.routing.ConnectionAdmission")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.sluice.runtime.routing.AttemptCall")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.sluice.runtime.routing.RouteWalks")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.sluice.runtime.routing.Walk")
                .check(shipped);
    }

    @Test
    void aRequestWalksDownThroughEntryComboAndRoutingAndNeverBackUp_issue35() {
        // entry (aliases, allowed models, combo or plain model) sits above the combos and the routing
        // core; a combo's targets call down into routing's Walk. Routing knows neither the entry point
        // nor the combo router and flows (only the combos' data, which sits below it), and no combo
        // room knows the entry point: a request's walk never calls back into a room it left
        noClasses().that().resideInAPackage("dev.sluice.runtime.routing..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.sluice.runtime.entry..", "dev.sluice.runtime.combo.routing..",
                        "dev.sluice.runtime.combo.flow..", "dev.sluice.runtime.combo.strategy..")
                .check(shipped);
        noClasses().that().resideInAPackage("dev.sluice.runtime.combo..")
                .should().dependOnClassesThat().resideInAPackage("dev.sluice.runtime.entry..")
                // nor implements a seam routing would call up through (the ComboRouting of before)
                .orShould().implement(com.tngtech.archunit.base.DescribedPredicate.describe("an interface of routing",
                        (com.tngtech.archunit.core.domain.JavaClass c) -> c.getPackageName().startsWith("dev.sluice.runtime.routing")))
                .check(shipped);
        classes().that().haveSimpleName("RequestRouter").should().resideInAPackage("dev.sluice.runtime.entry").check(shipped);
    }

    @Test
    void theResilienceEngineIsPlainJava_SH3() {
        // issue 4: plain Java driven by an injected clock; no web layer, no JSON library, no SQL
        classes().that().resideInAPackage("dev.sluice.runtime.resilience..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("java..", "dev.sluice.api..", "dev.sluice.runtime.resilience..",
                        "dev.sluice.runtime.store..")
                .check(shipped);
    }

    @Test
    void theRuntimesPackagesFormNoCycles() {
        // issue 12: a package that can be read, tested and replaced on its own must not need the
        // packages that need it. Every package is a slice of its own (combo.routing sits above the
        // routing core while the combos' data in combo sits below it); Main and SluiceServer
        // (dev.sluice.runtime itself) wire everything and are no slice
        slices().matching("dev.sluice.runtime.(**)").should().beFreeOfCycles().check(shipped);
    }

    /** The mechanisms of the resilience core, each a package of its own (issue 35). */
    static final List<String> MECHANISMS = List.of("breaker", "cooldown", "lockout", "window", "gate");

    /** The mechanisms whose shared mode is a decorator in a {@code shared} sub-package (issue 35). */
    static final List<String> DECORATED = List.of("window", "gate", "lockout", "breaker", "cooldown");

    @Test
    void eachResilienceMechanismIsARoomOfItsOwn_issue35() {
        // a mechanism knows the classifier's verdicts and the base every mechanism shares (settings,
        // candidate, cluster events); never another mechanism, the engine that assembles them, or Redis
        String base = "dev.sluice.runtime.resilience.";
        for (String m : MECHANISMS) {
            String[] others = Stream.concat(MECHANISMS.stream().filter(o -> !o.equals(m)).map(o -> base + o + ".."),
                    Stream.of(base + "engine..", "dev.sluice.runtime.redis..")).toArray(String[]::new);
            noClasses().that().resideInAPackage(base + m + "..").should().dependOnClassesThat().resideInAnyPackage(others)
                    .check(shipped);
        }
        // the classifier sits below everything, the shared base below every mechanism
        noClasses().that().resideInAPackage(base + "classify..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.sluice.runtime.resilience").orShould().dependOnClassesThat()
                .resideInAnyPackage(Stream.concat(MECHANISMS.stream(), Stream.of("engine")).map(o -> base + o + "..").toArray(String[]::new))
                .check(shipped);
        noClasses().that().resideInAPackage("dev.sluice.runtime.resilience")
                .should().dependOnClassesThat()
                .resideInAnyPackage(Stream.concat(MECHANISMS.stream(), Stream.of("engine")).map(o -> base + o + "..").toArray(String[]::new))
                .check(shipped);
        // shared mode is a decorator beside the board (issue 35): the local mechanism knows neither
        // Redis nor the board nor its decorator
        for (String m : DECORATED) {
            noClasses().that().resideInAPackage(base + m)
                    .should().dependOnClassesThat().resideInAnyPackage("dev.sluice.runtime.redis..", base + m + ".shared..")
                    .check(shipped);
        }
        // another instance's event reaches each mechanism through Mechanism.onClusterEvent: no switch
        // over mechanisms, no *Here twins to reach into
        noClasses().that().haveFullyQualifiedName(base + "engine.ClusterSync")
                .should().dependOnClassesThat().resideInAnyPackage(MECHANISMS.stream().map(o -> base + o + "..").toArray(String[]::new))
                .check(shipped);
        noMethods().that().areDeclaredInClassesThat().resideInAPackage("dev.sluice.runtime.resilience..")
                .should().haveNameMatching(".*Here")
                .check(shipped);
    }

    @Test
    void onlyTheStoreTalksToTheDatabase_SH3() {
        noClasses().that().resideOutsideOfPackage("dev.sluice.runtime.store..")
                .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "org.sqlite..", "org.postgresql..", "com.zaxxer.hikari..")
                .check(shipped);
    }

    @Test
    void onlyTheRedisPackageTalksToRedis_NF6() {
        // issue 20: the resilience core reaches shared state through its own interfaces only
        noClasses().that().resideOutsideOfPackage("dev.sluice.runtime.redis..")
                .should().dependOnClassesThat().resideInAnyPackage("redis.clients..")
                .check(shipped);
    }

    @Test
    void timeIsReadOnlyThroughTheInjectedClock() {
        noClasses().that().doNotHaveFullyQualifiedName("dev.sluice.runtime.Main")
                .should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(Instant.class, "now")
                .orShould().callMethod(Clock.class, "systemUTC")
                .orShould().callMethod(Clock.class, "systemDefaultZone")
                .check(shipped);
    }

    @Test
    void theRuntimeExportsNothingAndEachPluginProvidesOneService(@TempDir Path dir) throws IOException {
        Path home = Distribution.unpack(dir);
        Path lib = home.resolve("lib");
        Path plugins = home.resolve("plugins");
        ModuleDescriptor runtime = module(lib, "sluice.runtime");
        assertThat(runtime.exports()).isEmpty();
        assertThat(runtime.uses()).contains("dev.sluice.api.ProviderPlugin");
        assertThat(module(lib, "sluice.api").requires()).allSatisfy(r -> assertThat(r.name()).startsWith("java."));
        List<ModuleDescriptor> pluginModules;
        try (Stream<Path> jars = Files.walk(plugins, 2)) {
            // single JARs and the plugin JARs of folders (a folder's toolkit copy provides nothing)
            pluginModules = jars.filter(p -> p.toString().endsWith(".jar")).sorted()
                    .map(p -> ModuleFinder.of(p).findAll().iterator().next().descriptor())
                    .filter(d -> !d.name().equals("sluice.toolkit")).toList();
        }
        assertThat(pluginModules).hasSizeGreaterThanOrEqualTo(2);
        for (ModuleDescriptor d : pluginModules) {
            assertThat(d.isAutomatic()).as(d.name()).isFalse();
            assertThat(d.provides()).as(d.name()).hasSize(1);
            assertThat(d.provides().iterator().next().service()).isEqualTo("dev.sluice.api.ProviderPlugin");
            assertThat(d.requires()).as(d.name())
                    .allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api|sluice\\.toolkit"));
        }
    }

    private static ModuleDescriptor module(Path lib, String name) {
        return ModuleFinder.of(lib).find(name).map(ModuleReference::descriptor)
                .orElseThrow(() -> new AssertionError(name + " not found in " + lib));
    }
}
