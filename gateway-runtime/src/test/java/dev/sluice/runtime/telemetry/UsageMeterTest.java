package dev.sluice.runtime.telemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcUsageStore;
import dev.sluice.runtime.store.UsageAggregate;
import dev.sluice.runtime.store.UsageStore;
import dev.sluice.runtime.store.UsageTotals.GroupBy;
import dev.sluice.runtime.store.UsageTotals.Sums;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Usage counted in memory per minute and bucket, added to the table by flushes (SPEC DM-3, issue
 * 26): the same totals as one row per request, whether a request is still in memory or written.
 */
class UsageMeterTest {

    private static final Instant T0 = Instant.parse("2026-03-04T10:00:00Z");
    private static final long ALL_FROM = 0;
    private static final long ALL_TO = Long.MAX_VALUE;

    @TempDir
    Path dir;
    private final TestClock clock = TestClock.at(T0);
    private Database db;
    private JdbcUsageStore store;
    private UsageMeter meter;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcUsageStore(db);
        meter = new UsageMeter(store, clock, UsageMeter.MAX_BUCKETS, null);
    }

    @AfterEach
    void close() {
        meter.close();
        db.close();
    }

    /** One request as the per-request table held it. */
    record Req(long ts, String key, String api, String provider, String connection, String model, Long prompt, Long completion,
            Long cached, Long reasoning, int status, long latencyMs, int attempts) {

        void recordIn(UsageMeter m) {
            m.record(ts, key, api, provider, connection, model, new TokenCounts(prompt, completion, cached, reasoning), status, latencyMs,
                    attempts);
        }

        String group(GroupBy g) {
            return switch (g) {
                case KEY -> key;
                case PROVIDER -> provider;
                case CONNECTION -> connection;
                case MODEL -> provider == null || model == null ? null : provider + "/" + model;
                case DAY -> LocalDate.ofInstant(Instant.ofEpochMilli(ts), ZoneOffset.UTC).toString();
                case HOUR -> Instant.ofEpochMilli(ts).truncatedTo(java.time.temporal.ChronoUnit.HOURS).toString();
                case MINUTE -> Instant.ofEpochMilli(ts).truncatedTo(java.time.temporal.ChronoUnit.MINUTES).toString();
            };
        }
    }

    private static Req ok(long ts, String key, long prompt, long completion) {
        return new Req(ts, key, "chat_completions", "openai", "c1", "gpt-4o", prompt, completion, null, null, 200, 30, 1);
    }

    /** What the per-request table's SQL answered: sums per group, provider and model over each request. */
    private static List<Sums> perRequest(List<Req> reqs, GroupBy g) {
        Map<List<String>, long[]> by = new LinkedHashMap<>();
        for (Req r : reqs) {
            long[] s = by.computeIfAbsent(Arrays.asList(r.group(g), r.provider(), r.model()), k -> new long[8]);
            s[0]++;
            s[1] += r.status() >= 400 ? 1 : 0;
            s[2] += r.prompt() == null ? 0 : r.prompt();
            s[3] += r.completion() == null ? 0 : r.completion();
            s[4] += r.cached() == null ? 0 : r.cached();
            s[5] += r.reasoning() == null ? 0 : r.reasoning();
            s[6] += r.latencyMs();
            s[7] += r.attempts();
        }
        List<Sums> out = new ArrayList<>();
        by.forEach((k, s) -> out.add(new Sums(k.get(0), k.get(1), k.get(2), s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])));
        out.sort(Sums.ORDER);
        return out;
    }

    private long rows() {
        return db.withConnection(c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM usage")) {
                rs.next();
                return rs.getLong(1);
            }
        });
    }

    @Test
    void manyRequestsInOneMinuteBecomeOneRowWithSummedCountsAfterAFlush_DM3() {
        long t = T0.toEpochMilli();
        for (int i = 0; i < 1_000; i++) {
            meter.record(t + i * 50, "k1", "chat_completions", "openai", "c1", "gpt-4o", new TokenCounts(10L, 5L, 2L, 1L), i % 10 == 0 ? 429 : 200,
                    20, i % 10 == 0 ? 2 : 1);
        }
        assertThat(rows()).isZero();
        assertThat(meter.flush()).isTrue();

        assertThat(rows()).isEqualTo(1);
        assertThat(store.totals(ALL_FROM, ALL_TO, GroupBy.KEY)).containsExactly(
                new Sums("k1", "openai", "gpt-4o", 1_000, 100, 10_000, 5_000, 2_000, 1_000, 20_000, 1_100));
        // a second flush of the same minute adds to its row, it does not add a row
        meter.record(t + 59_000, "k1", "chat_completions", "openai", "c1", "gpt-4o", new TokenCounts(1L, 1L, null, null), 200, 5, 1);
        meter.flush();
        assertThat(rows()).isEqualTo(1);
        assertThat(store.totals(ALL_FROM, ALL_TO, GroupBy.KEY)).singleElement()
                .satisfies(s -> assertThat(s.requests()).isEqualTo(1_001))
                .satisfies(s -> assertThat(s.promptTokens()).isEqualTo(10_001));
    }

    @Test
    void everyGroupingAnswersWhatOneRowPerRequestAnswered_writtenOrStillInMemory_DM3() {
        Random random = new Random(26);
        String[] keys = {"k1", "k2", null};
        String[] providers = {"openai", "anthropic", null};
        List<Req> reqs = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            // two days, several minutes, every dimension sometimes unknown, tokens sometimes unreported
            long ts = T0.toEpochMilli() + random.nextLong(2 * 86_400_000L);
            String provider = providers[random.nextInt(3)];
            reqs.add(new Req(ts, keys[random.nextInt(3)], random.nextBoolean() ? "chat_completions" : "messages", provider,
                    provider == null ? null : provider + "-" + random.nextInt(2), provider == null ? null : "m" + random.nextInt(3),
                    random.nextBoolean() ? (long) random.nextInt(100) : null, random.nextBoolean() ? (long) random.nextInt(100) : null,
                    random.nextBoolean() ? (long) random.nextInt(10) : null, random.nextBoolean() ? (long) random.nextInt(10) : null,
                    random.nextInt(5) == 0 ? 503 : 200, random.nextInt(1_000), 1 + random.nextInt(3)));
        }
        clock.advance(Duration.ofDays(3));
        for (int i = 0; i < reqs.size(); i++) {
            reqs.get(i).recordIn(meter);
            if (i == 200) {
                // part in the table, part in memory
                meter.flush();
            }
        }
        for (GroupBy g : GroupBy.values()) {
            assertThat(meter.totals(ALL_FROM, ALL_TO, g)).as("%s, part in memory", g).isEqualTo(perRequest(reqs, g));
        }
        meter.flush();
        for (GroupBy g : GroupBy.values()) {
            assertThat(meter.totals(ALL_FROM, ALL_TO, g)).as("%s, all written", g).isEqualTo(perRequest(reqs, g));
            assertThat(store.totals(ALL_FROM, ALL_TO, g)).as("%s, the table alone", g).isEqualTo(perRequest(reqs, g));
        }
    }

    @Test
    void aRequestStillInMemoryIsInTheTotalsAtOnceAndCountedOnceAfterTheFlush_DM3() {
        ok(T0.toEpochMilli() + 1_000, "k1", 7, 3).recordIn(meter);
        assertThat(rows()).isZero();
        assertThat(meter.totals(ALL_FROM, ALL_TO, GroupBy.PROVIDER)).containsExactly(
                new Sums("openai", "openai", "gpt-4o", 1, 0, 7, 3, 0, 0, 30, 1));
        meter.flush();
        assertThat(meter.totals(ALL_FROM, ALL_TO, GroupBy.PROVIDER)).containsExactly(
                new Sums("openai", "openai", "gpt-4o", 1, 0, 7, 3, 0, 0, 30, 1));
    }

    @Test
    void rangesSelectTheMinuteARequestArrivedIn_DM3() {
        long t = T0.toEpochMilli();
        ok(t + 30_000, "k1", 1, 1).recordIn(meter);
        ok(t + 90_000, "k1", 2, 2).recordIn(meter);
        // 10:00:30 counts in the minute 10:00: a range from 10:00:15 starts after it
        assertThat(meter.totals(t + 15_000, t + 120_000, GroupBy.KEY)).singleElement().satisfies(s -> assertThat(s.promptTokens()).isEqualTo(2));
        assertThat(meter.totals(t, t + 60_000, GroupBy.KEY)).singleElement().satisfies(s -> assertThat(s.promptTokens()).isEqualTo(1));
        meter.flush();
        assertThat(meter.totals(t + 15_000, t + 120_000, GroupBy.KEY)).singleElement().satisfies(s -> assertThat(s.promptTokens()).isEqualTo(2));
        assertThat(meter.totals(t, t + 60_000, GroupBy.KEY)).singleElement().satisfies(s -> assertThat(s.promptTokens()).isEqualTo(1));
    }

    @Test
    void aLongRequestFinishingAfterItsMinuteWasWrittenAddsToThatMinutesRow_DM3() {
        long t = T0.toEpochMilli();
        ok(t, "k1", 1, 1).recordIn(meter);
        clock.advance(Duration.ofMinutes(5));
        meter.flush();
        assertThat(meter.buckets()).as("a past minute's bucket is let go once written").isZero();
        // a stream that arrived at 10:00 ends at 10:05
        ok(t + 10, "k1", 4, 4).recordIn(meter);
        meter.flush();
        assertThat(rows()).isEqualTo(1);
        assertThat(store.totals(ALL_FROM, ALL_TO, GroupBy.KEY)).singleElement().satisfies(s -> {
            assertThat(s.requests()).isEqualTo(2);
            assertThat(s.promptTokens()).isEqualTo(5);
        });
    }

    @Test
    void closingWritesEverythingStillInMemory_DM3() {
        ok(T0.toEpochMilli(), "k1", 3, 4).recordIn(meter);
        ok(T0.toEpochMilli() + 61_000, "k2", 5, 6).recordIn(meter);
        meter.close();
        meter.close();
        assertThat(new JdbcUsageStore(db).totals(ALL_FROM, ALL_TO, GroupBy.KEY)).extracting(Sums::group, Sums::promptTokens)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("k1", 3L), org.assertj.core.groups.Tuple.tuple("k2", 5L));
    }

    @Test
    void whatTheDatabaseRefusedIsKeptCountedAndWrittenByTheNextFlush_DM3() {
        AtomicInteger failures = new AtomicInteger(1);
        UsageStore flaky = new UsageStore() {
            @Override
            public void add(List<UsageAggregate> aggregates) {
                if (failures.getAndDecrement() > 0) {
                    throw new IllegalStateException("database is locked");
                }
                store.add(aggregates);
            }

            @Override
            public int prune(long olderThan, int maxRows) {
                return store.prune(olderThan, maxRows);
            }

            @Override
            public List<Sums> totals(long from, long to, GroupBy groupBy) {
                return store.totals(from, to, groupBy);
            }
        };
        try (UsageMeter m = new UsageMeter(flaky, clock, UsageMeter.MAX_BUCKETS, null)) {
            ok(T0.toEpochMilli(), "k1", 3, 4).recordIn(m);
            clock.advance(Duration.ofMinutes(2));
            assertThat(m.flush()).isFalse();
            assertThat(m.totals(ALL_FROM, ALL_TO, GroupBy.KEY)).singleElement().satisfies(s -> assertThat(s.requests()).isEqualTo(1));
            ok(T0.toEpochMilli() + 1, "k1", 1, 1).recordIn(m);
            assertThat(m.flush()).isTrue();
        }
        assertThat(store.totals(ALL_FROM, ALL_TO, GroupBy.KEY)).singleElement().satisfies(s -> {
            assertThat(s.requests()).isEqualTo(2);
            assertThat(s.promptTokens()).isEqualTo(4);
        });
    }

    @Test
    void pastTheBucketBoundNewBucketsGoUncountedInsteadOfGrowingTheHeap_DM3() {
        try (UsageMeter m = new UsageMeter(store, clock, 2, null)) {
            assertThat(m.record(T0.toEpochMilli(), "k1", "chat_completions", "p", "c", "m1", TokenCounts.UNKNOWN, 200, 1, 1)).isTrue();
            assertThat(m.record(T0.toEpochMilli(), "k1", "chat_completions", "p", "c", "m2", TokenCounts.UNKNOWN, 200, 1, 1)).isTrue();
            assertThat(m.record(T0.toEpochMilli(), "k1", "chat_completions", "p", "c", "m3", TokenCounts.UNKNOWN, 200, 1, 1)).isFalse();
            // a known bucket still counts
            assertThat(m.record(T0.toEpochMilli(), "k1", "chat_completions", "p", "c", "m1", TokenCounts.UNKNOWN, 200, 1, 1)).isTrue();
            assertThat(m.totals(ALL_FROM, ALL_TO, GroupBy.MODEL)).extracting(Sums::requests).containsExactly(2L, 1L);
        }
    }

    @Test
    void flushesKeepTheTableToNinetyDaysAndAMillionRowsPruningHourly_DM3() {
        assertThat(UsageMeter.RETENTION).isEqualTo(Duration.ofDays(90));
        assertThat(UsageMeter.MAX_ROWS).isEqualTo(1_000_000);
        assertThat(UsageMeter.MAX_BUCKETS).isEqualTo(100_000);
        long old = T0.toEpochMilli() - Duration.ofDays(91).toMillis();
        store.add(List.of(new UsageAggregate(UsageAggregate.minuteOf(old), "k1", "chat_completions", "openai", "c1", "gpt-4o", 1, 0, 1, 1,
                0, 0, 1, 1)));
        ok(T0.toEpochMilli(), "k1", 1, 1).recordIn(meter);
        meter.flush();
        assertThat(rows()).as("the 91-day-old minute is pruned by the first flush").isEqualTo(1);
        // within the hour no prune runs; past it one does
        store.add(List.of(new UsageAggregate(UsageAggregate.minuteOf(old), "k1", "chat_completions", "openai", "c1", "gpt-4o", 1, 0, 1, 1,
                0, 0, 1, 1)));
        clock.advance(Duration.ofMinutes(59));
        meter.flush();
        assertThat(rows()).isEqualTo(2);
        clock.advance(Duration.ofMinutes(1));
        meter.flush();
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void requestsRecordedWhileFlushesRunAreEachCountedOnce_DM3() throws Exception {
        int threads = 4;
        int perThread = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                int n = i;
                running.add(pool.submit(() -> {
                    for (int j = 0; j < perThread; j++) {
                        // two minutes: one current, one past (retired by every flush)
                        ok(T0.toEpochMilli() + (j % 2) * 60_000, "k" + n % 2, 1, 2).recordIn(meter);
                    }
                }));
            }
            clock.advance(Duration.ofSeconds(70));
            while (running.stream().anyMatch(f -> !f.isDone())) {
                meter.flush();
            }
            for (Future<?> f : running) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        meter.flush();
        assertThat(store.totals(ALL_FROM, ALL_TO, GroupBy.PROVIDER)).singleElement().satisfies(s -> {
            assertThat(s.requests()).isEqualTo((long) threads * perThread);
            assertThat(s.completionTokens()).isEqualTo(2L * threads * perThread);
        });
    }
}
