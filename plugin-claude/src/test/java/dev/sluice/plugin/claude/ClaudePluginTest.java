package dev.sluice.plugin.claude;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ModelInfo;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plugin's contract: what it contributes, through the SPI only. */
class ClaudePluginTest {

    private final ClaudePlugin plugin = new ClaudePlugin();

    @Test
    void itsModuleProvidesExactlyThePluginService_SH2() {
        var descriptor = ClaudePlugin.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.name()).isEqualTo("sluice.plugin.claude");
        assertThat(descriptor.provides()).hasSize(1);
        var provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo(ProviderPlugin.class.getName());
        assertThat(provides.providers()).containsExactly(ClaudePlugin.class.getName());
        assertThat(descriptor.requires()).allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api|sluice\\.toolkit"));
        assertThat(descriptor.exports()).isEmpty();
    }

    @Test
    void declaresTheCurrentSpiVersionAndAStableName_PA3() {
        assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
        assertThat(plugin.name()).isEqualTo("claude");
    }

    @Test
    void contributesTheClaudeProviderOnItsOwnExecutor_DM1b() {
        assertThat(plugin.providers()).hasSize(1);
        ProviderDescriptor d = plugin.providers().get(0);
        assertThat(d.id()).isEqualTo("claude");
        assertThat(d.displayName()).isEqualTo("Anthropic Claude");
        assertThat(d.defaultClass()).isEqualTo(ProviderClass.APIKEY);
        assertThat(d.defaultBaseUrl()).isEqualTo("https://api.anthropic.com");
        assertThat(d.executor()).isEqualTo("claude");
        assertThat(d.passthroughModels()).isTrue();
        assertThat(d.models()).extracting(ModelInfo::id).containsExactly("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5");
    }

    @Test
    void contributesTheNamedExecutorFactoryThatTheDescriptorRefersTo() {
        assertThat(plugin.executors()).hasSize(1);
        var factory = plugin.executors().get(0);
        assertThat(factory.name()).isEqualTo(plugin.providers().get(0).executor());
        assertThat(factory.create(FakeHost.create(new FakeUpstream(), Map.of()))).isNotNull();
    }

    @Test
    void contributesNoRulesYet_andAnswersTheSameListsEveryTime() {
        assertThat(plugin.restatementRules()).isEmpty();
        assertThat(plugin.errorRules()).isEmpty();
        assertThat(plugin.egressBucketing()).isEmpty();
        assertThat(plugin.providers()).isSameAs(plugin.providers());
        assertThat(plugin.executors()).isSameAs(plugin.executors());
    }

    @Test
    void keepsNoStaticMutableState_PA4() throws IOException, ClassNotFoundException {
        var reference = ModuleLayer.boot().configuration().findModule("sluice.plugin.claude").orElseThrow().reference();
        List<String> classes = new ArrayList<>();
        try (var reader = reference.open()) {
            reader.list().filter(n -> n.startsWith("dev/sluice/plugin/claude/") && n.endsWith(".class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .filter(n -> !n.endsWith("Test") && !n.contains("Test$"))
                    .forEach(classes::add);
        }
        assertThat(classes).contains(ClaudePlugin.class.getName(), ClaudeExecutor.class.getName());
        for (String name : classes) {
            for (Field f : Class.forName(name).getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && !f.isSynthetic()) {
                    assertThat(Modifier.isFinal(f.getModifiers())).as(name + "." + f.getName() + " is static and not final").isTrue();
                }
            }
        }
    }

    @Test
    void declaresTheConnectionOptionsItsExecutorReads_issue33() {
        assertThat(plugin.providers().get(0).connectionFields()).extracting(f -> f.name() + ":" + f.type())
                .containsExactly("lowPriorityMode:BOOLEAN", "autoLimitReset:BOOLEAN", "organizationUUID:STRING");
        assertThat(plugin.providers().get(0).connectionFields()).allSatisfy(f -> assertThat(f.description()).isNotBlank());
    }
}
