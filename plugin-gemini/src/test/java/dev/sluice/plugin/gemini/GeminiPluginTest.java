package dev.sluice.plugin.gemini;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderExecutor;
import dev.sluice.api.ProviderPlugin;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.time.InstantSource;
import dev.sluice.testkit.plugin.RuleEvaluator;
import dev.sluice.testkit.plugin.RuleVerdict;
import dev.sluice.testkit.plugin.TestingHostContext;
import org.junit.jupiter.api.Test;

/** The plugin's contract: what it contributes, through the SPI only. */
class GeminiPluginTest {

    private final GeminiPlugin plugin = new GeminiPlugin();

    @Test
    void itsModuleProvidesExactlyThePluginService_SH2() {
        var descriptor = GeminiPlugin.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.name()).isEqualTo("sluice.plugin.gemini");
        assertThat(descriptor.provides()).hasSize(1);
        var provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo(ProviderPlugin.class.getName());
        assertThat(provides.providers()).containsExactly(GeminiPlugin.class.getName());
        assertThat(descriptor.requires()).allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api|sluice\\.toolkit"));
        assertThat(descriptor.exports()).as("nothing but the service is visible").isEmpty();
    }

    @Test
    void declaresTheCurrentSpiVersionAndAStableName_PA3() {
        assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
        assertThat(plugin.name()).isEqualTo("gemini");
    }

    @Test
    void contributesTheGeminiProviderOnItsOwnExecutor_DM1b() {
        assertThat(plugin.providers()).hasSize(1);
        ProviderDescriptor d = plugin.providers().get(0);
        assertThat(d.id()).isEqualTo("gemini");
        assertThat(d.displayName()).isEqualTo("Google Gemini");
        assertThat(d.defaultClass()).isEqualTo(ProviderClass.APIKEY);
        assertThat(d.defaultBaseUrl()).isEqualTo("https://generativelanguage.googleapis.com");
        assertThat(d.executor()).isEqualTo("gemini");
        assertThat(d.passthroughModels()).isTrue();
        assertThat(d.models()).extracting(ModelInfo::id)
                .containsExactly("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite");
        assertThat(plugin.executors()).extracting(ExecutorFactory::name).containsExactly(d.executor());
    }

    @Test
    void theExecutorFactoryBuildsAnExecutorFromTheHostContext_PA4() {
        HostContext host = TestingHostContext.builder("gemini").http(request -> {
            throw new java.net.ConnectException("refused");
        }).clock(InstantSource.fixed(Instant.EPOCH)).build();
        ProviderExecutor executor = plugin.executors().get(0).create(host);
        assertThat(executor).isNotNull();
        assertThat(executor.supportsEmbeddings()).isFalse();
    }

    @Test
    void aGemini429IsARateLimitAndItsRetryInfoDelayIsTheHint_FC3() {
        // no rules of its own: the runtime's built-in classification, with Google's RetryInfo read by the plugin
        RuleVerdict v = RuleEvaluator.of(plugin).evaluate("gemini", GeminiErrorReader.read(
                new dev.sluice.api.upstream.ResponseHead(429, java.util.Map.of()),
                "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"message\":\"Resource has been exhausted\","
                        + "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"17s\"}]}}"));

        assertThat(v.errorRule()).isNull();
        assertThat(v.retryAfterMs()).isEqualTo(17_000L);
        assertThat(v.fallback()).isTrue();
    }

    @Test
    void contributesNoRules() {
        assertThat(plugin.restatementRules()).isEmpty();
        assertThat(plugin.errorRules()).isEmpty();
        assertThat(plugin.egressBucketing()).isEmpty();
    }

    @Test
    void contributionsAreTheSameImmutableListsEveryTime() {
        assertThat(plugin.providers()).isSameAs(plugin.providers());
        assertThat(plugin.executors()).isSameAs(plugin.executors());
    }

    @Test
    void keepsNoStaticMutableState_PA4() throws ClassNotFoundException {
        for (String name : new String[] {"GeminiPlugin", "GeminiExecutorFactory", "GeminiExecutor", "GeminiRequestWriter",
                "GeminiResponseReader", "StreamTranslator", "GeminiSseStream", "GeminiErrorReader", "SchemaSanitizer",
                "FinishReasons", "UsageReader", "Ids"}) {
            Class<?> c = Class.forName("dev.sluice.plugin.gemini." + name);
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers())) {
                    assertThat(Modifier.isFinal(f.getModifiers())).as(c.getSimpleName() + "." + f.getName()).isTrue();
                }
            }
        }
    }

    @Test
    void declaresTheConnectionOptionItsExecutorReads_issue33() {
        assertThat(plugin.providers().get(0).connectionFields()).singleElement().satisfies(f -> {
            assertThat(f.name()).isEqualTo(GeminiExecutor.INCLUDE_THOUGHTS);
            assertThat(f.type()).isEqualTo(dev.sluice.api.ConnectionField.Type.BOOLEAN);
            assertThat(f.description()).contains("includeThoughts");
        });
    }
}
