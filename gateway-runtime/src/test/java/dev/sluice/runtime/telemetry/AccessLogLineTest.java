package dev.sluice.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.runtime.stream.StreamEnding;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The access log's hand-written line (issue 26): valid JSON, the same fields and values as before, any input escaped. */
class AccessLogLineTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aLineIsJsonWithTheRequestsFieldsAndLeavesOutWhatIsUnknown_issue26() throws Exception {
        RequestRecord r = new RequestRecord("req_1", "POST", "/v1/chat/completions", 1_764_860_418_123L, 0);
        r.keyId("key_9");
        r.errorCode("rate_limited");
        r.usage(new TokenCounts(12L, null, 3L, null));
        r.streamEnded(StreamEnding.CLIENT_GONE);
        JsonNode line = JSON.readTree(AccessLog.line(r, 429, 17));
        assertThat(line.get("time").asText()).isEqualTo("2025-12-04T15:00:18.123Z");
        assertThat(line.get("requestId").asText()).isEqualTo("req_1");
        assertThat(line.get("keyId").asText()).isEqualTo("key_9");
        assertThat(line.get("method").asText()).isEqualTo("POST");
        assertThat(line.get("api").asText()).isEqualTo("chat_completions");
        assertThat(line.get("status").asInt()).isEqualTo(429);
        assertThat(line.get("latencyMs").asLong()).isEqualTo(17);
        assertThat(line.get("attempts").asInt()).isZero();
        assertThat(line.get("errorCode").asText()).isEqualTo("rate_limited");
        assertThat(line.get("stream").asText()).isEqualTo("client_gone");
        assertThat(line.get("tokens").toString()).isEqualTo("{\"prompt\":12,\"cached\":3}");
        assertThat(line.has("model")).isFalse();
        assertThat(line.has("provider")).isFalse();
        assertThat(line.has("heldBack")).isFalse();
    }

    @Test
    void quotesBackslashesControlCharactersAndLoneSurrogatesAreEscaped_issue26() throws Exception {
        String nasty = "a\"b\\c\nd\te\u0001f\u007f\ud800g\uD83D\uDE00é";
        RequestRecord r = new RequestRecord(nasty, "GET", "/x", 0, 0);
        String text = AccessLog.line(r, 200, 0);
        assertThat(text).doesNotContain("\n").contains("\\ud800").contains("\uD83D\uDE00");
        JsonNode line = JSON.readTree(text);
        assertThat(line.get("requestId").asText()).isEqualTo(nasty);
        assertThat(line.get("time").asText()).isEqualTo("1970-01-01T00:00:00Z");
    }

    @Test
    void timesAreWrittenExactlyAsInstantWritesThem_issue26() {
        long[] samples = {0, 1, 10, 100, 999, 1000, 1_764_860_418_000L, 1_764_860_418_010L, 1_764_860_418_999L, -1, -1001,
            253_402_300_799_999L, 253_402_300_800_000L};
        for (long ms : samples) {
            StringBuilder b = new StringBuilder();
            Timestamps.appendInstant(b, ms);
            assertThat(b.toString()).as("%d", ms).isEqualTo(Instant.ofEpochMilli(ms).toString());
        }
    }
}
