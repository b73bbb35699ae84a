package dev.sluice.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcProxyLogStore;
import dev.sluice.runtime.store.ProxyLogRow;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /api/logs}'s data: the ring merged with the persisted failed attempts, filtered (issue 26). */
class RequestHistoryTest {

    private static final long T0 = 1_767_225_600_000L;
    private static final int ALL = RequestHistory.ANY_STATUS;

    @TempDir
    Path dir;
    private Database db;
    private JdbcProxyLogStore store;
    private final RecentRequests recent = new RecentRequests(4);
    private RequestHistory history;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcProxyLogStore(db);
        history = new RequestHistory(recent, store);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static RecentRequest request(String id, long at, String key, String provider, String model, int status) {
        return new RecentRequest(id, at, key, "chat_completions", model, provider, "conn-" + provider, model, status, 7, null, null, 1);
    }

    private static ProxyLogRow attempt(String id, long at, String provider, int status, String error) {
        return new ProxyLogRow(at, id, provider, "conn-" + provider, "m-" + provider, status, 5, error, null);
    }

    private List<RequestHistory.Entry> query(int min, int max, String provider, String model, String key) {
        return history.query(new RequestHistory.Query(0, T0 + 1_000_000, min, max, provider, model, key, 100)).entries();
    }

    private List<String> ids(List<RequestHistory.Entry> entries) {
        return entries.stream().map(e -> e.request().requestId()).toList();
    }

    @Test
    void ringEntriesCarryTheirAttemptsAndPersistedFailuresAreMergedOncePerRequest_issue26() {
        ProxyLogRow failed = attempt("req-1", T0, "a", 500, "server_error");
        ProxyLogRow served = attempt("req-1", T0 + 10, "b", 200, null);
        recent.attempt(failed);
        recent.attempt(served);
        recent.add(request("req-1", T0, "key-1", "b", "m", 200));
        store.append(List.of(failed));
        // older than the ring: only its persisted failures are known
        store.append(List.of(attempt("old", T0 - 5_000, "a", 0, "timeout"), attempt("old", T0 - 4_000, "a", 503, "server_error")));

        List<RequestHistory.Entry> all = query(0, ALL, null, null, null);
        assertThat(ids(all)).containsExactly("req-1", "old");
        assertThat(all.get(0).source()).isEqualTo(RequestHistory.FROM_RING);
        assertThat(all.get(0).attempts()).containsExactly(failed, served);
        RequestHistory.Entry old = all.get(1);
        assertThat(old.source()).isEqualTo(RequestHistory.FROM_LOG);
        assertThat(old.request()).isEqualTo(new RecentRequest("old", T0 - 5_000, null, null, null, "a", "conn-a", "m-a", 503, -1, null,
                "server_error", 2));
        assertThat(old.attempts()).extracting(ProxyLogRow::status).containsExactly(0, 503);
    }

    @Test
    void attemptsTheRingForgotComeBackFromTheTable_issue26() {
        ProxyLogRow failed = attempt("req-1", T0, "a", 429, "rate_limit_exceeded");
        store.append(List.of(failed));
        recent.add(request("req-1", T0, "key-1", "b", "m", 200));
        assertThat(query(0, ALL, null, null, null).getFirst().attempts()).containsExactly(failed);
    }

    @Test
    void filtersByStatusProviderModelKeyAndTime_issue26() {
        recent.add(request("ok", T0, "key-1", "a", "m1", 200));
        recent.add(request("limited", T0 + 1, "key-2", "b", "m2", 429));
        recent.attempt(attempt("limited", T0 + 1, "c", 429, "rate_limit_exceeded"));
        recent.add(request("broken", T0 + 2, "key-1", "a", "m2", 502));

        assertThat(ids(query(200, 299, null, null, null))).containsExactly("ok");
        assertThat(ids(query(400, 499, null, null, null))).containsExactly("limited");
        assertThat(ids(query(502, 502, null, null, null))).containsExactly("broken");
        assertThat(ids(query(0, ALL, "a", null, null))).containsExactly("broken", "ok");
        // a provider tried on the way counts too
        assertThat(ids(query(0, ALL, "c", null, null))).containsExactly("limited");
        assertThat(ids(query(0, ALL, null, "m2", null))).containsExactly("broken", "limited");
        assertThat(ids(query(0, ALL, null, "m-c", null))).containsExactly("limited");
        assertThat(ids(query(0, ALL, null, null, "key-1"))).containsExactly("broken", "ok");
        assertThat(ids(history.query(new RequestHistory.Query(T0 + 1, T0 + 2, 0, ALL, null, null, null, 100)).entries()))
                .containsExactly("limited");
    }

    @Test
    void theLimitCutsTheOldestAndSaysThereIsMore_issue26() {
        for (int i = 0; i < 4; i++) {
            recent.add(request("req-" + i, T0 + i, "k", "a", "m", 200));
        }
        RequestHistory.Result r = history.query(new RequestHistory.Query(0, T0 + 100, 0, ALL, null, null, null, 3));
        assertThat(ids(r.entries())).containsExactly("req-3", "req-2", "req-1");
        assertThat(r.more()).isTrue();
        assertThat(r.ringCapacity()).isEqualTo(4);
    }
}
