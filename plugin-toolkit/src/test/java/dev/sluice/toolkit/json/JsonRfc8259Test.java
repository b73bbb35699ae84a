package dev.sluice.toolkit.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The plugin's own JSON reader and writer. */
class JsonRfc8259Test {

    @Test
    void parsesEveryKindOfValue() {
        Object v = Json.parse(" {\"s\":\"x\",\"i\":42,\"neg\":-7,\"d\":1.50,\"e\":1e3,\"t\":true,\"f\":false,\"n\":null,"
                + "\"a\":[1,\"two\",[],{}],\"o\":{\"k\":\"v\"}} ");
        assertThat(v).isInstanceOf(LinkedHashMap.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) v;
        assertThat(m.keySet()).containsExactly("s", "i", "neg", "d", "e", "t", "f", "n", "a", "o");
        assertThat(m.get("s")).isEqualTo("x");
        assertThat(m.get("i")).isEqualTo(42L);
        assertThat(m.get("neg")).isEqualTo(-7L);
        assertThat(m.get("d")).isEqualTo(new BigDecimal("1.50"));
        assertThat(m.get("e")).isEqualTo(new BigDecimal("1e3"));
        assertThat(m.get("t")).isEqualTo(true);
        assertThat(m.get("f")).isEqualTo(false);
        assertThat(m.containsKey("n")).isTrue();
        assertThat(m.get("n")).isNull();
        assertThat(m.get("a")).isEqualTo(List.of(1L, "two", List.of(), Map.of()));
        assertThat(m.get("o")).isEqualTo(Map.of("k", "v"));
    }

    @Test
    void decodesEscapesIncludingSurrogatePairs() {
        assertThat(Json.parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\""))
                .isEqualTo("a\"b\\c/d\b\f\n\r\té😀");
        assertThat(Json.parse("\"héllo 😀\"")).isEqualTo("héllo 😀");
    }

    @Test
    void keepsLargeNumbersExactly() {
        assertThat(Json.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(Json.parse("9223372036854775808")).isEqualTo(new java.math.BigInteger("9223372036854775808"));
        assertThat(Json.write(Json.parse("[123456789012345678901234567890, 0.1, -0.0, 2.5E-7]")))
                .isEqualTo("[123456789012345678901234567890,0.1,0.0,2.5E-7]");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "{", "[1,]", "{\"a\":1,}", "{'a':1}", "[1 2]", "01", "1.", ".5", "-", "1e",
            "tru", "nul", "\"abc", "\"a\\x\"", "\"\\u12\"", "\"tab\there\"", "{\"a\" 1}", "{1:2}", "[1]]", "// c\n1",
            "NaN", "Infinity", "+1"})
    void refusesWhatJsonDoesNotAllow(String text) {
        assertThatThrownBy(() -> Json.parse(text)).isInstanceOf(JsonException.class).hasMessageContaining("offset");
    }

    @Test
    void refusesNestingDeeperThanTheLimit() {
        String deep = "[".repeat(Json.MAX_DEPTH + 1) + "]".repeat(Json.MAX_DEPTH + 1);
        assertThatThrownBy(() -> Json.parse(deep)).isInstanceOf(JsonException.class).hasMessageContaining("nesting");
        String ok = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
        assertThat(Json.parse(ok)).isInstanceOf(List.class);
    }

    @Test
    void parseObjectRefusesOtherValues() {
        assertThatThrownBy(() -> Json.parseObject("[1]")).isInstanceOf(JsonException.class);
        assertThatThrownBy(() -> Json.parseObject(null)).isInstanceOf(JsonException.class);
    }

    @Test
    void writesCompactJsonInInsertionOrder() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("z", 1);
        m.put("a", List.of(true, false));
        m.put("n", null);
        m.put("d", 2.0);
        m.put("f", 0.25);
        m.put("l", 10_000_000_000L);
        m.put("o", Map.of());
        assertThat(Json.write(m)).isEqualTo("{\"z\":1,\"a\":[true,false],\"n\":null,\"d\":2,\"f\":0.25,\"l\":10000000000,\"o\":{}}");
    }

    @Test
    void escapesQuotesBackslashesControlCharactersAndLineSeparators() {
        assertThat(Json.quote("a\"b\\c\nd\re\tf\bg\fh\u0001i\u001fj\u2028k\u2029l/"))
                .isEqualTo("\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001i\\u001fj\\u2028k\\u2029l/\"");
        assertThat(Json.quote("é😀")).isEqualTo("\"é😀\"");
    }

    @Test
    void escapesUnpairedSurrogatesSoTheOutputStaysValidUtf8() {
        String lone = "x\ud83dy\ude00";
        String quoted = Json.quote(lone);
        assertThat(quoted).isEqualTo("\"x\\ud83dy\\ude00\"");
        assertThat(Json.parse(quoted)).isEqualTo(lone);
    }

    @Test
    void roundTripsArbitraryValues() {
        List<Object> list = new ArrayList<>(Arrays.asList("s\u0000\"", 1L, new BigDecimal("3.14159"), null, true,
                Map.of("nested", List.of(Map.of("k", "v\n")))));
        String text = Json.write(list);
        assertThat(Json.parse(text)).isEqualTo(list);
    }

    @Test
    void refusesNonFiniteNumbersAndUnknownTypes() {
        assertThatThrownBy(() -> Json.write(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Json.write(new Object())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void navigationHelpersTolerateMissingAndMistypedMembers() {
        Object v = Json.parse("{\"o\":{\"s\":\"x\",\"n\":3,\"b\":true},\"a\":[1]}");
        assertThat(Json.string(Json.object(v, "o"), "s")).isEqualTo("x");
        assertThat(Json.number(Json.object(v, "o"), "n")).isEqualTo(3L);
        assertThat(Json.isTrue(Json.object(v, "o"), "b")).isTrue();
        assertThat(Json.array(v, "a")).containsExactly(1L);
        assertThat(Json.object(v, "a")).isNull();
        assertThat(Json.array(v, "o")).isEmpty();
        assertThat(Json.string(null, "s")).isNull();
        assertThat(Json.number(v, "missing")).isNull();
        assertThat(Json.isTrue(Json.object(v, "o"), "s")).isFalse();
    }
}
