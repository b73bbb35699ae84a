package dev.sluice.runtime.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Splicing a passed-through body's model (issue 26): byte for byte around the value, or null to fall back. */
class TopLevelFieldsTest {

    private static String splice(String json, String value, Set<String> refused) {
        byte[] out = TopLevelFields.withString(json.getBytes(StandardCharsets.UTF_8), "model", value, refused);
        return out == null ? null : new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void theModelValueIsReplacedAndEverythingElseKeptByteForByte_issue26() {
        String body = "{ \"messages\" : [{\"role\":\"user\",\"content\":\"say \\\"model\\\": {x}\"}],\n"
                + "  \"model\":\"claude/claude-sonnet-4-5\", \"max_tokens\":1024,\"metadata\":{\"model\":\"inner\"},\"stream\":true }";
        assertThat(splice(body, "claude-sonnet-4-5", Set.of())).isEqualTo(body.replace("\"claude/claude-sonnet-4-5\"", "\"claude-sonnet-4-5\""));
    }

    @Test
    void theNewValueIsEscapedAsJson_issue26() {
        assertThat(splice("{\"model\":\"a\"}", "we\"ird\\é\n", Set.of())).isEqualTo("{\"model\":\"we\\\"ird\\\\é\\n\"}");
    }

    @Test
    void unusualBodiesFallBackToTheTree_issue26() {
        assertThat(splice("{\"model\":\"a\",\"model\":\"b\"}", "x", Set.of())).as("repeated").isNull();
        assertThat(splice("{\"messages\":[]}", "x", Set.of())).as("absent").isNull();
        assertThat(splice("{\"model\":42}", "x", Set.of())).as("not a string").isNull();
        assertThat(splice("{\"mod\\u0065l\":\"a\"}", "x", Set.of())).as("escaped key").isNull();
        assertThat(splice("{\"model\":\"a\",\"background\":true}", "x", Set.of("background"))).as("refused field").isNull();
        assertThat(splice("[\"model\"]", "x", Set.of())).as("not an object").isNull();
        assertThat(splice("{\"model\":\"a\"", "x", Set.of())).as("cut short").isNull();
        assertThat(splice("{\"model\":\"a\"} trailing", "x", Set.of())).as("trailing bytes").isNull();
        assertThat(splice("{}", "x", Set.of())).isNull();
    }

    @Test
    void valuesOfEveryKindAreSkipped_issue26() {
        String body = "{\"a\":1.5e3,\"b\":true,\"c\":null,\"d\":[1,{\"e\":\"]}\"}],\"f\":\"\\\\\",\"model\":\"m\"}";
        assertThat(splice(body, "n", Set.of("background"))).isEqualTo(body.replace("\"m\"", "\"n\""));
    }
}
