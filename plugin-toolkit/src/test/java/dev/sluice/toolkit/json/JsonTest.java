package dev.sluice.toolkit.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The plugin's own JSON reader and writer (no Jackson in a plugin). */
class JsonTest {

    @Test
    void readsEveryValueType() {
        Object v = Json.parse(" {\"s\":\"x\",\"i\":-12,\"d\":1.5,\"e\":2e3,\"t\":true,\"f\":false,\"n\":null,"
                + "\"a\":[1,[],{}],\"o\":{\"k\":\"v\"}} ");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("s", "x");
        expected.put("i", -12L);
        expected.put("d", new BigDecimal("1.5"));
        expected.put("e", new BigDecimal("2e3"));
        expected.put("t", true);
        expected.put("f", false);
        expected.put("n", null);
        expected.put("a", List.of(1L, List.of(), Map.of()));
        expected.put("o", Map.of("k", "v"));
        assertThat(v).isEqualTo(expected);
    }

    @Test
    void keepsMemberOrderAndLastDuplicateWins() {
        Map<String, Object> m = Json.parseObject("{\"b\":1,\"a\":2,\"b\":3}");
        assertThat(m.keySet()).containsExactly("b", "a");
        assertThat(m.get("b")).isEqualTo(3L);
    }

    @Test
    void decodesEscapesAndSurrogatePairs() {
        assertThat(Json.parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\""))
                .isEqualTo("a\"b\\c/d\b\f\n\r\t\u00e9\uD83D\uDE00");
        assertThat(Json.parse("\"grüße 日本\"")).isEqualTo("grüße 日本");
    }

    @Test
    void readsBigNumbersWithoutLoss() {
        assertThat(Json.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(Json.parse("-9223372036854775808")).isEqualTo(Long.MIN_VALUE);
        assertThat(Json.parse("123456789012345678901234567890")).isEqualTo(new BigInteger("123456789012345678901234567890"));
        assertThat(Json.parse("1e400")).isEqualTo(new BigDecimal("1e400"));
        assertThat(Json.parse("-0")).isEqualTo(0L);
        assertThat(Json.parse("0.25")).isEqualTo(new BigDecimal("0.25"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "01", "1.", ".5", "-", "1e",
            "+1", "tru", "nul", "\"abc", "\"a\\x\"", "\"\\u12g4\"", "\"\\u12\"", "\"tab\there\"", "{} {}", "[] x", "'s'",
            "NaN", "// c\n1", "{\"a\":1}}"})
    void rejectsInvalidJson(String text) {
        assertThatThrownBy(() -> Json.parse(text)).isInstanceOf(JsonException.class).hasMessageContaining("invalid JSON");
    }

    @Test
    void rejectsNestingBeyondTheLimitInsteadOfOverflowingTheStack() {
        String deep = "[".repeat(Json.MAX_DEPTH + 1) + "]".repeat(Json.MAX_DEPTH + 1);
        assertThatThrownBy(() -> Json.parse(deep)).isInstanceOf(JsonException.class).hasMessageContaining("nesting");
        String ok = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
        assertThat(Json.parse(ok)).isInstanceOf(List.class);
    }

    @Test
    void parseObjectRefusesOtherValues() {
        assertThatThrownBy(() -> Json.parseObject("[1]")).isInstanceOf(JsonException.class);
    }

    @Test
    void writesCompactJsonInMapOrder() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", 1);
        m.put("a", List.of(true, "x", 2.5, 3L));
        m.put("n", null);
        m.put("o", Map.of());
        assertThat(Json.write(m)).isEqualTo("{\"z\":1,\"a\":[true,\"x\",2.5,3],\"n\":null,\"o\":{}}");
    }

    @Test
    void writesIntegralDoublesAsIntegers() {
        assertThat(Json.write(1.0)).isEqualTo("1");
        assertThat(Json.write(0.7)).isEqualTo("0.7");
        assertThat(Json.write(-3.0)).isEqualTo("-3");
        assertThat(((BigDecimal) Json.parse(Json.write(1e20))).doubleValue()).isEqualTo(1e20);
    }

    @Test
    void escapesStringsSoTheOutputIsValidJsonAndUtf8() {
        String s = "q\" b\\ nl\n cr\r tab\t bs\b ff\f nul\u0000 us\u001f é 😀";
        String json = Json.quote(s);
        assertThat(json).isEqualTo("\"q\\\" b\\\\ nl\\n cr\\r tab\\t bs\\b ff\\f nul\\u0000 us\\u001f é 😀\"");
        assertThat(Json.parse(json)).isEqualTo(s);
    }

    @Test
    void writesALoneSurrogateAsAnEscapeNotAsAQuestionMark() {
        String lone = "a\uD83Db";
        String json = Json.quote(lone);
        assertThat(json).isEqualTo("\"a\\ud83db\"");
        assertThat(new String(json.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isEqualTo(json);
        assertThat(Json.parse(json)).isEqualTo(lone);
    }

    @Test
    void roundTripsAComplexDocument() {
        String text = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi \\\"there\\\"\\n\"}]}],"
                + "\"big\":123456789012345678901234567890,\"neg\":-1.25e-7,\"nested\":{\"a\":[null,false,{}]}}";
        Object parsed = Json.parse(text);
        assertThat(Json.parse(Json.write(parsed))).isEqualTo(parsed);
    }

    @Test
    void refusesValuesThatAreNotJson() {
        assertThatThrownBy(() -> Json.write(new Object())).isInstanceOf(JsonException.class);
        assertThatThrownBy(() -> Json.write(Double.NaN)).isInstanceOf(JsonException.class);
        assertThatThrownBy(() -> Json.write(Map.of(1, "x"))).isInstanceOf(JsonException.class);
        List<Object> cyclic = new ArrayList<>();
        cyclic.add(cyclic);
        assertThatThrownBy(() -> Json.write(cyclic)).isInstanceOf(JsonException.class);
    }

    @Test
    void typedAccessorsAnswerNullForMissingOrMistypedMembers() {
        Object o = Json.parse("{\"s\":\"x\",\"n\":5,\"o\":{},\"a\":[]}");
        assertThat(Json.string(o, "s")).isEqualTo("x");
        assertThat(Json.string(o, "n")).isNull();
        assertThat(Json.number(o, "n")).isEqualTo(5L);
        assertThat(Json.number(o, "s")).isNull();
        assertThat(Json.object(o, "o")).isEmpty();
        assertThat(Json.object(o, "a")).isNull();
        assertThat(Json.array(o, "a")).isEmpty();
        assertThat(Json.get("not an object", "s")).isNull();
        assertThat(Arrays.asList(Json.string(null, "x"))).containsExactly((String) null);
    }

    @Test
    void oneSetOfLimitsForEveryPlugin_nestingAndNumberTypes() {
        assertThat(Json.MAX_DEPTH).isEqualTo(512);
        assertThat(Json.parse("1")).isInstanceOf(Long.class);
        assertThat(Json.parse("99999999999999999999")).isInstanceOf(BigInteger.class);
        assertThat(Json.parse("0.1")).isEqualTo(new BigDecimal("0.1"));
        assertThat(Json.write(Json.parse("{\"t\":0.1,\"big\":1e400}"))).isEqualTo("{\"t\":0.1,\"big\":1E+400}");
    }

    @Test
    void refusalsAreIllegalArgumentsWithTheOffset() {
        assertThatThrownBy(() -> Json.parse("[1,]")).isInstanceOf(IllegalArgumentException.class)
                .isInstanceOfSatisfying(JsonException.class, e -> assertThat(e.offset()).isEqualTo(3))
                .hasMessageContaining("invalid JSON").hasMessageContaining("offset 3");
    }
}
