package dev.sluice.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-attempt {@code proxy_logs} rows: the SQLite store and the bounded asynchronous writer (SPEC
 * DM-3 bounded retention; CONVENTIONS: keep I/O off the request path).
 */
class ProxyLogTest {

    private static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    private static final InstantSource CLOCK = () -> Instant.ofEpochMilli(T0);
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private Database db;
    private JdbcProxyLogStore store;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcProxyLogStore(db);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private static ProxyLogRow row(long ts, int n) {
        return new ProxyLogRow(ts, "req-" + n, "openai", "conn-" + n, "gpt-4o", 200 + n, 10L + n, n % 2 == 0 ? null : "timeout",
                n % 2 == 0 ? "203.0.113." + n : null);
    }

    // ------------------------------------------------------------------ store

    @Test
    void appendedRowsComeBackNewestFirstWithEveryField_DM3() {
        ProxyLogRow a = new ProxyLogRow(T0, "req-1", "agentrouter", "conn-1", "claude-sonnet-4-5", 429, 87, "quota_exhausted",
                "198.51.100.7");
        ProxyLogRow b = new ProxyLogRow(T0 + 5, null, "openai", null, null, 0, 30_000, "timeout", null);
        store.append(List.of(a, b));

        assertThat(store.recent(10)).containsExactly(b, a);
        assertThat(store.recent(1)).containsExactly(b);
    }

    @Test
    void appendingNothingIsANoOp_DM3() {
        store.append(List.of());
        assertThat(store.recent(10)).isEmpty();
    }

    @Test
    void pruneDeletesRowsOlderThanTheCutoff_DM3() {
        store.append(List.of(row(1_000, 1), row(2_000, 2), row(3_000, 3)));

        assertThat(store.prune(2_500, 100)).isEqualTo(2);
        assertThat(store.recent(10)).containsExactly(row(3_000, 3));
    }

    @Test
    void pruneKeepsAtMostTheNewestMaxRows_DM3() {
        List<ProxyLogRow> rows = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            rows.add(row(T0 + i, i));
        }
        store.append(rows);

        assertThat(store.prune(0, 2)).isEqualTo(3);
        assertThat(store.recent(10)).containsExactly(row(T0 + 5, 5), row(T0 + 4, 4));
    }

    @Test
    void pruneByAgeAndByCountAddUp_DM3() {
        store.append(List.of(row(1, 1), row(T0, 2), row(T0, 3), row(T0, 4)));

        assertThat(store.prune(2, 2)).isEqualTo(2);
        assertThat(store.recent(10)).containsExactly(row(T0, 4), row(T0, 3));
        assertThat(store.prune(2, 2)).isZero();
    }

    // ------------------------------------------------------------------ writer

    @Test
    void writerDefaultsAreNamedConstants_DM3() {
        assertThat(ProxyLogWriter.MAX_ROWS).isEqualTo(200_000);
        assertThat(ProxyLogWriter.RETENTION).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void recordedRowsAreWrittenByFlush_DM3() {
        try (ProxyLogWriter writer = new ProxyLogWriter(store, CLOCK, 100)) {
            writer.record(row(T0, 1));
            writer.record(row(T0 + 1, 2));
            writer.record(row(T0 + 2, 3));

            assertThat(writer.flush(WAIT)).isTrue();
            assertThat(store.recent(10)).containsExactly(row(T0 + 2, 3), row(T0 + 1, 2), row(T0, 1));
            assertThat(writer.dropped()).isZero();
        }
    }

    @Test
    void flushWithNothingPendingReturnsAtOnce_DM3() {
        try (ProxyLogWriter writer = new ProxyLogWriter(store, CLOCK, 4)) {
            assertThat(writer.flush(Duration.ZERO)).isTrue();
        }
    }

    @Test
    void closeWritesWhatIsStillQueued_DM3() {
        ProxyLogWriter writer = new ProxyLogWriter(store, CLOCK, 100);
        writer.record(row(T0, 1));
        writer.close();

        assertThat(store.recent(10)).containsExactly(row(T0, 1));
    }

    @Test
    void rowsRecordedAfterCloseAreDroppedAndCounted_DM3() {
        ProxyLogWriter writer = new ProxyLogWriter(store, CLOCK, 100);
        writer.close();
        writer.record(row(T0, 1));

        assertThat(writer.dropped()).isEqualTo(1);
        assertThat(store.recent(10)).isEmpty();
    }

    @Test
    void lastEgressIpsAreTheNewestPerConnectionInTheWindow_EB2_EB4() {
        store.append(List.of(
                new ProxyLogRow(T0, "r1", "opencode-go", "a", "m", 200, 1, null, "127.0.0.2"),
                new ProxyLogRow(T0 + 10, "r2", "opencode-go", "a", "m", 200, 1, null, "127.0.0.3"),
                new ProxyLogRow(T0 + 20, "r3", "opencode-go", "a", "m", 200, 1, null, null),
                new ProxyLogRow(T0 + 5, "r4", "opencode-cli", "b", "m", 200, 1, null, "127.0.0.2"),
                new ProxyLogRow(T0 - 1, "r5", "opencode-cli", "old", "m", 200, 1, null, "127.0.0.2"),
                new ProxyLogRow(T0 + 5, "r6", "glm", "c", "m", 200, 1, null, "127.0.0.2")));
        assertThat(store.lastEgressIps(List.of("a", "b", "old", "none"), T0))
                .isEqualTo(java.util.Map.of("a", "127.0.0.3", "b", "127.0.0.2"));
        assertThat(store.lastEgressIps(List.of(), T0)).isEmpty();
    }

    /** A store whose first append blocks until released, so that the writer falls behind on demand. */
    private static final class StallingStore implements ProxyLogStore {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<ProxyLogRow> written = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void append(List<ProxyLogRow> rows) {
            entered.countDown();
            try {
                if (!release.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            written.addAll(rows);
        }

        @Override
        public List<ProxyLogRow> recent(int limit) {
            return List.of();
        }

        @Override
        public int prune(long olderThan, int maxRows) {
            return 0;
        }
    }

    @Test
    void recordNeverBlocksWhenTheQueueIsFullItDropsAndCounts_DM3() throws InterruptedException {
        StallingStore stalling = new StallingStore();
        try (ProxyLogWriter writer = new ProxyLogWriter(stalling, CLOCK, 2)) {
            writer.record(row(T0, 1));
            assertThat(stalling.entered.await(10, TimeUnit.SECONDS)).as("writer picked up the first row").isTrue();

            assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
                writer.record(row(T0, 2));
                writer.record(row(T0, 3));
                writer.record(row(T0, 4));
                writer.record(row(T0, 5));
            });

            assertThat(writer.dropped()).isEqualTo(2);
            assertThat(writer.flush(Duration.ZERO)).as("row 1 is still being written").isFalse();
            stalling.release.countDown();
            assertThat(writer.flush(WAIT)).isTrue();
            assertThat(stalling.written).containsExactly(row(T0, 1), row(T0, 2), row(T0, 3));
            assertThat(writer.dropped()).isEqualTo(2);
        }
    }

    @Test
    void aFailingStoreCountsTheBatchAsDroppedAndTheWriterCarriesOn_DM3() {
        List<ProxyLogRow> written = Collections.synchronizedList(new ArrayList<>());
        ProxyLogStore flaky = new ProxyLogStore() {
            private boolean failed;

            @Override
            public void append(List<ProxyLogRow> rows) {
                if (!failed) {
                    failed = true;
                    throw new StoreException("disk full", null);
                }
                written.addAll(rows);
            }

            @Override
            public List<ProxyLogRow> recent(int limit) {
                return List.of();
            }

            @Override
            public int prune(long olderThan, int maxRows) {
                return 0;
            }
        };
        try (ProxyLogWriter writer = new ProxyLogWriter(flaky, CLOCK, 10)) {
            writer.record(row(T0, 1));
            assertThat(writer.flush(WAIT)).isTrue();
            assertThat(writer.dropped()).isEqualTo(1);

            writer.record(row(T0, 2));
            assertThat(writer.flush(WAIT)).isTrue();
            assertThat(written).containsExactly(row(T0, 2));
            assertThat(writer.dropped()).isEqualTo(1);
        }
    }

    @Test
    void writerPrunesWithTheRetentionCutoffAndRowCapEveryTenThousandRows_DM3() {
        List<long[]> prunes = Collections.synchronizedList(new ArrayList<>());
        ProxyLogStore counting = new ProxyLogStore() {
            @Override
            public void append(List<ProxyLogRow> rows) {
            }

            @Override
            public List<ProxyLogRow> recent(int limit) {
                return List.of();
            }

            @Override
            public int prune(long olderThan, int maxRows) {
                prunes.add(new long[] {olderThan, maxRows});
                return 0;
            }
        };
        try (ProxyLogWriter writer = new ProxyLogWriter(counting, CLOCK, 20_000)) {
            ProxyLogRow r = row(T0, 1);
            for (int i = 0; i < 9_999; i++) {
                writer.record(r);
            }
            assertThat(writer.flush(WAIT)).isTrue();
            assertThat(prunes).isEmpty();

            writer.record(r);
            assertThat(writer.flush(WAIT)).isTrue();
            assertThat(prunes).hasSize(1);
            assertThat(prunes.get(0)).containsExactly(T0 - Duration.ofDays(7).toMillis(), 200_000);
        }
    }
}
