package dev.sluice.runtime.resilience.classify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The literal prefilter of the classifier's pattern tables must never skip a pattern that could match (FC-2, FC-4). */
class RegexLiteralsTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', nullValues = "NULL", value = {
        "'\\bdaily\\b.{0,40}\\blimit'; daily",
        "'quota.{0,40}exceed'; exceed",
        "'quota (?:depleted|will reset|exhausted)'; 'quota '",
        "'\\bper.?day\\b.{0,40}\\blimit'; limit",
        "'\\bhard.?limit'; limit",
        "'限额将在.{0,40}重置'; 限额将在",
        "retry; retry",
        "abc?; NULL",
        "'(?:limit|quota)'; NULL",
        "'limit|quota'; NULL",
        "'[a-z]{3}x'; NULL",
        "insufficient_g1_credits_balance; insufficient_g1_credits_balance",
        "'colou?r scheme'; 'r scheme'",
        "'a+bcd'; bcd"})
    void theRequiredLiteralIsOneEveryMatchContains_FC2(String regex, String expected) {
        assertThat(RegexLiterals.required(regex)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', nullValues = "NULL", value = {
        "'\\bdaily\\b.{0,40}\\blimit'; daily",
        "'quota.{0,40}exceed'; quota",
        "'quota (?:depleted|will reset)'; 'quota '",
        "'\\bper.?day'; per",
        "'colou?r'; colo",
        "'ab.c'; NULL",
        "'(?:a|b)cde'; NULL",
        "'x|yyyy'; NULL"})
    void theLeadingLiteralIsWhereEveryMatchStarts_FC2(String regex, String expected) {
        assertThat(RegexLiterals.prefix(regex)).isEqualTo(expected);
    }
}
