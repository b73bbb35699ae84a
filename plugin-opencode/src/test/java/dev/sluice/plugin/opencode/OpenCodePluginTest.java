package dev.sluice.plugin.opencode;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderClass;
import dev.sluice.api.ProviderDescriptor;
import dev.sluice.api.ProviderPlugin;
import org.junit.jupiter.api.Test;

/** The plugin's contract: what it contributes, through the SPI only. */
class OpenCodePluginTest {

    private final OpenCodePlugin plugin = new OpenCodePlugin();

    @Test
    void itsModuleProvidesExactlyThePluginService_SH2() {
        var descriptor = OpenCodePlugin.class.getModule().getDescriptor();
        assertThat(descriptor).as("tests run on the module path").isNotNull();
        assertThat(descriptor.provides()).hasSize(1);
        var provides = descriptor.provides().iterator().next();
        assertThat(provides.service()).isEqualTo(ProviderPlugin.class.getName());
        assertThat(provides.providers()).containsExactly(OpenCodePlugin.class.getName());
        assertThat(descriptor.requires()).allSatisfy(r -> assertThat(r.name()).matches("java\\..*|sluice\\.api"));
    }

    @Test
    void declaresTheCurrentSpiVersionAndAStableName_PA3() {
        assertThat(plugin.spiVersion()).isEqualTo(ProviderPlugin.SPI_VERSION);
        assertThat(plugin.name()).isEqualTo("opencode");
    }

    @Test
    void contributesTheThreeOpencodeProvidersOfEB1() {
        assertThat(plugin.providers()).extracting(ProviderDescriptor::id)
                .containsExactly("opencode-zen", "opencode-go", "opencode-cli");
        for (ProviderDescriptor d : plugin.providers()) {
            assertThat(d.defaultClass()).isEqualTo(ProviderClass.APIKEY);
            assertThat(d.defaultBaseUrl()).isEqualTo("https://opencode.ai/zen/v1");
            assertThat(d.executor()).isEqualTo(HostContext.OPENAI_COMPATIBLE);
            assertThat(d.passthroughModels()).isTrue();
        }
    }
}
