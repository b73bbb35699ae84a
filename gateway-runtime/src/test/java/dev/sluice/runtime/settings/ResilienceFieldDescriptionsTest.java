package dev.sluice.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.resilience.ResilienceSettings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResilienceFieldDescriptionsTest {

    private static List<String> paths() {
        ObjectNode schema = ResilienceSettingsSchemaJson.render(ResilienceSettings.DEFAULTS);
        List<String> out = new ArrayList<>();
        schema.get("sections").forEach(s -> s.get("fields").forEach(f -> {
            assertThat(f.get("description").asText()).as(f.get("path").asText()).isNotBlank();
            out.add(f.get("path").asText());
        }));
        return out;
    }

    @Test
    void everyFieldOfTheSchemaHasADescription_issue33() {
        List<String> paths = paths();
        assertThat(paths).hasSizeGreaterThan(50);
        assertThat(ResilienceFieldDescriptions.of("circuitBreaker.oauth.failureThreshold"))
                .isEqualTo(ResilienceFieldDescriptions.of("circuitBreaker.local.failureThreshold"))
                .contains("OPEN");
        assertThat(ResilienceFieldDescriptions.of("circuitBreaker.apikey.nope")).isNull();
    }

    @Test
    void noDescriptionNamesAFieldThatDoesNotExist_issue33() {
        List<String> paths = paths();
        for (String key : ResilienceFieldDescriptions.keys()) {
            String regex = key.replace(".", "\\.").replace("*", "[a-z]+");
            assertThat(paths).as(key).anyMatch(p -> p.matches(regex));
        }
    }
}
