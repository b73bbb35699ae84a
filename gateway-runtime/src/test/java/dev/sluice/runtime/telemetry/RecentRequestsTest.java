package dev.sluice.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.runtime.store.ProxyLogRow;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bounded in-memory ring of recent requests and attempts (issue 26). */
class RecentRequestsTest {

    private static RequestRecord record(String id, String path, long at) {
        RequestRecord r = new RequestRecord(id, "POST", path, at, 0);
        r.keyId("key-1");
        return r;
    }

    @Test
    void theRingKeepsTheNewestCapacityRequestsOnly_issue26() {
        RecentRequests recent = new RecentRequests(8);
        for (int i = 0; i < 8 + 5; i++) {
            recent.finished(record("req-" + i, "/v1/chat/completions", 1_000 + i), 200, 3);
        }
        List<RecentRequest> held = recent.requests();
        assertThat(held).hasSize(8);
        assertThat(held).extracting(RecentRequest::requestId)
                .containsExactly("req-12", "req-11", "req-10", "req-9", "req-8", "req-7", "req-6", "req-5");
        assertThat(held.getFirst()).isEqualTo(new RecentRequest("req-12", 1_012, "key-1", "chat_completions", null, null, null, null,
                200, 3, null, null, 0));
        assertThat(RecentRequests.DEFAULT_CAPACITY).isEqualTo(1024);
        assertThat(new RecentRequests(RecentRequests.DEFAULT_CAPACITY).capacity()).isEqualTo(1024);
    }

    @Test
    void attemptsAreKeptTwicePerRequestSlot_issue26() {
        RecentRequests recent = new RecentRequests(4);
        for (int i = 0; i < 20; i++) {
            recent.attempt(new ProxyLogRow(i, "req-" + i, "p", "c", "m", 200, 1, null, null));
        }
        assertThat(recent.attempts()).hasSize(8).first().extracting(ProxyLogRow::requestId).isEqualTo("req-19");
    }

    @Test
    void onlyInferenceRequestsEnterTheRing_issue26() {
        RecentRequests recent = new RecentRequests(8);
        recent.finished(record("admin", "/api/logs", 1), 200, 1);
        recent.finished(record("health", "/health/live", 2), 200, 1);
        recent.finished(record("chat", "/v1/messages", 3), 502, 1);
        assertThat(recent.requests()).extracting(RecentRequest::requestId).containsExactly("chat");
    }

    @Test
    void theCapacityIsAPowerOfTwo_issue26() {
        assertThatThrownBy(() -> new RecentRequests(1000)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
    }
}
