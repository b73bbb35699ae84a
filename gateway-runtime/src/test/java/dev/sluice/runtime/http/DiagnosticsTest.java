package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.ProviderClass;
import dev.sluice.api.rules.FailureReason;
import dev.sluice.runtime.resilience.BreakerKey;
import dev.sluice.runtime.resilience.Candidate;
import dev.sluice.runtime.resilience.Exclusion;
import dev.sluice.runtime.routing.ConnectionSelector;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Each mechanism's entry in {@code diagnostics.excluded} (SPEC CO-5). */
class DiagnosticsTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "MODEL_LOCKOUT, 120000, model_lockout, 120",
        "CIRCUIT_OPEN, 29001, circuit_open, 30",
        "PROVIDER_COOLDOWN, 600000, provider_cooldown, 600",
        "UNAVAILABLE, 7000, unavailable, 7",
        "TERMINAL, 0, terminal, 0"})
    void eachMechanismIsNamedWithItsSecondsLeft_CO5(Exclusion.Reason reason, long ms, String wire, long seconds) {
        Connection c = new Connection("c1", 1, "glm", "k", ProviderClass.APIKEY, "sk", null, null, 1, true, null, null, false, false,
                null, null, null, ConnectionState.ACTIVE, 0, 0);
        ConnectionSelector.Excluded x = new ConnectionSelector.Excluded(
                new Candidate("glm", ProviderClass.APIKEY, c, new BreakerKey("glm", "h:1"), "glm-4.6", null),
                new Exclusion(reason, ms, reason == Exclusion.Reason.UNAVAILABLE ? null : FailureReason.RATE_LIMIT_EXCEEDED));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> excluded = (List<Map<String, Object>>) RoutedAnswers.diagnostics(List.of(x)).get("excluded");
        assertThat(excluded).singleElement().satisfies(m -> {
            assertThat(m).containsEntry("target", "glm/glm-4.6").containsEntry("provider", "glm").containsEntry("model", "glm-4.6")
                    .containsEntry("connectionId", "c1").containsEntry("reason", wire).containsEntry("secondsLeft", seconds);
        });
    }
}
