package dev.sluice.plugin.gemini;

import dev.sluice.toolkit.json.Json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** JSON Schema → the OpenAPI subset Gemini's Schema accepts. */
class SchemaSanitizerTest {

    private static Object sanitized(String schema) {
        return Json.parse(Json.write(SchemaSanitizer.sanitize(Json.parseObject(schema))));
    }

    private static void assertSanitized(String schema, String expected) {
        assertThat(sanitized(schema)).isEqualTo(Json.parse(expected));
    }

    @Test
    void dropsKeywordsGeminiRejects() {
        assertSanitized("""
                {"$schema":"http://json-schema.org/draft-07/schema#","$id":"x","$comment":"c","type":"object",
                 "additionalProperties":false,"patternProperties":{"^x":{"type":"string"}},"strict":true,
                 "properties":{"a":{"type":"number","exclusiveMinimum":0,"multipleOf":2,"examples":[1]},
                               "b":{"type":"array","items":{"type":"string"},"uniqueItems":true,"minItems":1},
                               "c":{"not":{"type":"string"},"if":{},"then":{},"else":{},"type":"string","readOnly":true}}}
                """, """
                {"type":"object","properties":{"a":{"type":"number"},
                 "b":{"type":"array","items":{"type":"string"},"minItems":1},"c":{"type":"string"}}}
                """);
    }

    @Test
    void keepsWhatGeminiAccepts() {
        assertSanitized("""
                {"type":"object","title":"T","description":"D","nullable":false,"minProperties":1,"maxProperties":3,
                 "propertyOrdering":["s","n"],
                 "properties":{"s":{"type":"string","enum":["a","b"],"minLength":1,"maxLength":9,"pattern":"^[ab]$",
                                    "example":"a","default":"a","format":"date-time"},
                               "n":{"type":"number","minimum":0,"maximum":1,"format":"double"}},
                 "required":["s"]}
                """, """
                {"type":"object","title":"T","description":"D","nullable":false,"minProperties":1,"maxProperties":3,
                 "propertyOrdering":["s","n"],
                 "properties":{"s":{"type":"string","enum":["a","b"],"minLength":1,"maxLength":9,"pattern":"^[ab]$",
                                    "example":"a","default":"a","format":"date-time"},
                               "n":{"type":"number","minimum":0,"maximum":1,"format":"double"}},
                 "required":["s"]}
                """);
    }

    @Test
    void dropsFormatsGeminiDoesNotKnow() {
        assertSanitized("""
                {"type":"object","properties":{"u":{"type":"string","format":"uri"},"e":{"type":"string","format":"email"},
                 "i":{"type":"integer","format":"int64"},"x":{"type":"integer","format":"uint8"}}}
                """, """
                {"type":"object","properties":{"u":{"type":"string"},"e":{"type":"string"},
                 "i":{"type":"integer","format":"int64"},"x":{"type":"integer"}}}
                """);
    }

    @Test
    void typeListsBecomeNullableOrAnyOf() {
        assertSanitized("{\"type\":[\"string\",\"null\"]}", "{\"type\":\"string\",\"nullable\":true}");
        assertSanitized("{\"type\":[\"string\",\"integer\"]}", "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}");
        assertSanitized("{\"type\":\"null\"}", "{\"nullable\":true}");
    }

    @Test
    void optionalAnyOfWithNullBecomesNullable() {
        assertSanitized("{\"anyOf\":[{\"type\":\"string\",\"description\":\"d\"},{\"type\":\"null\"}],\"title\":\"Name\"}",
                "{\"type\":\"string\",\"description\":\"d\",\"nullable\":true,\"title\":\"Name\"}");
    }

    @Test
    void oneOfBecomesAnyOf() {
        assertSanitized("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\",\"exclusiveMaximum\":3}]}",
                "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}");
    }

    @Test
    void allOfIsMergedIntoItsParent() {
        assertSanitized("""
                {"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
                          {"properties":{"b":{"type":"integer"}},"required":["b"]}],"description":"both"}
                """, """
                {"type":"object","description":"both","properties":{"a":{"type":"string"},"b":{"type":"integer"}},
                 "required":["a","b"]}
                """);
    }

    @Test
    void constBecomesASingleValueEnumAndNonStringEnumsAreDropped() {
        assertSanitized("{\"type\":\"string\",\"const\":\"fixed\"}", "{\"type\":\"string\",\"enum\":[\"fixed\"]}");
        assertSanitized("{\"type\":\"integer\",\"enum\":[1,2,3]}", "{\"type\":\"integer\"}");
    }

    @Test
    void localReferencesAreInlinedAndRecursionStops() {
        assertSanitized("""
                {"type":"object","$defs":{"Pet":{"type":"object","properties":{"name":{"type":"string"},
                   "friend":{"$ref":"#/$defs/Pet"}}},"Kind":{"type":"string","enum":["cat","dog"]}},
                 "definitions":{"Old":{"type":"boolean"}},
                 "properties":{"pet":{"$ref":"#/$defs/Pet","description":"the pet"},"kind":{"$ref":"#/$defs/Kind"},
                   "old":{"$ref":"#/definitions/Old"},"remote":{"$ref":"https://example.com/schema.json"}}}
                """, """
                {"type":"object","properties":{
                  "pet":{"type":"object","description":"the pet","properties":{"name":{"type":"string"},
                          "friend":{"type":"object"}}},
                  "kind":{"type":"string","enum":["cat","dog"]},
                  "old":{"type":"boolean"},
                  "remote":{"type":"object"}}}
                """);
    }

    @Test
    void emptyPropertiesAndDanglingRequiredNamesAreRemoved() {
        assertSanitized("{\"type\":\"object\",\"properties\":{},\"required\":[\"ghost\"]}", "{\"type\":\"object\"}");
        assertSanitized("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\",\"ghost\"]}",
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"required\":[\"a\"]}");
    }

    @Test
    void aFunctionWithoutParametersSendsNoSchema() {
        assertThat(SchemaSanitizer.sanitizeParameters(Json.parseObject("{\"type\":\"object\",\"properties\":{}}"))).isNull();
        assertThat(SchemaSanitizer.sanitizeParameters(Json.parseObject("{}"))).isNull();
        assertThat(SchemaSanitizer.sanitizeParameters(null)).isNull();
        assertThat(SchemaSanitizer.sanitizeParameters(Json.parseObject(
                "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}")))
                .isEqualTo(Map.of("type", "object", "properties", Map.of("a", Map.of("type", "string"))));
    }
}
