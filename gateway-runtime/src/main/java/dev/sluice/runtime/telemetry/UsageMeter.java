package dev.sluice.runtime.telemetry;

import dev.sluice.runtime.store.UsageAggregate;
import dev.sluice.runtime.store.UsageStore;
import dev.sluice.runtime.store.UsageTotals;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Usage accounting (SPEC DM-3, issue 26): each inference request is counted in memory in its
 * minute's bucket ({@link UsageBuckets}, well under a microsecond, no thread woken), and a timer
 * adds the buckets to the {@code usage} table every flush interval and at shutdown. What a crash
 * (kill -9) can lose is the last flush interval. {@link #totals} answers from the table plus what
 * is still in memory, so a request shows in {@code GET /api/usage} as soon as it is finished.
 * In shared mode each instance adds its own buckets to the shared table; another instance's
 * requests show there after its next flush.
 */
public final class UsageMeter implements UsageTotals, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(UsageMeter.class.getName());
    /** Rows older than this are pruned. */
    public static final Duration RETENTION = Duration.ofDays(90);
    /** Rows kept at most (a row is a minute of one key, API, provider, connection and model). */
    public static final int MAX_ROWS = 1_000_000;
    /** Buckets held in memory at most, and aggregates kept for a retry when the database refused them. */
    public static final int MAX_BUCKETS = 100_000;
    /** How often the table is pruned. */
    static final Duration PRUNE_EVERY = Duration.ofHours(1);

    private final UsageStore store;
    private final InstantSource clock;
    private final UsageBuckets buckets;
    /** Drained but not yet in the table (a write in progress, or one the database refused): still counted by {@link #totals}. */
    private final Map<UsageBuckets.Key, UsageAggregate> pending = new LinkedHashMap<>();
    /** Orders flushes and queries, so that a query never sees a count both in memory and in the table, nor in neither. */
    private final ReentrantLock lock = new ReentrantLock();
    private final ScheduledExecutorService timer;
    private long lastPrune = Long.MIN_VALUE;
    private long droppedReported;
    private boolean closed;

    UsageMeter(UsageStore store, InstantSource clock, int maxBuckets, ScheduledExecutorService timer) {
        this.store = store;
        this.clock = clock;
        this.buckets = new UsageBuckets(maxBuckets);
        this.timer = timer;
    }

    /**
     * Starts the accounting and its flush timer (one daemon thread, {@code sluice-usage-flush}).
     *
     * @param store the table
     * @param clock the clock (minutes, retention)
     * @param flushInterval how often buckets are added to the table
     * @return the meter
     */
    public static UsageMeter start(UsageStore store, InstantSource clock, Duration flushInterval) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-usage-flush");
            t.setDaemon(true);
            return t;
        });
        UsageMeter meter = new UsageMeter(store, clock, MAX_BUCKETS, timer);
        long ms = flushInterval.toMillis();
        timer.scheduleWithFixedDelay(meter::flushQuietly, ms, ms, TimeUnit.MILLISECONDS);
        return meter;
    }

    /**
     * Counts a finished inference request in the minute it arrived in.
     *
     * @param r the request
     * @param status the HTTP status answered (400 or more counts as an error)
     * @param latencyMs arrival to last byte
     */
    void record(RequestRecord r, int status, long latencyMs) {
        record(r.startedAtMs(), r.keyId(), r.api(), r.provider(), r.connectionId(), r.model(), r.tokens(), status, latencyMs, r.attempts());
    }

    /**
     * Counts an upstream answer a combo executor read itself (issue 34: a pipeline's earlier step,
     * a fusion panel member, a context-relay summary) under the API {@code combo_step}, in the
     * current minute, as a successful request of its provider, connection and model.
     *
     * @param keyId the client's key id
     * @param provider the provider that answered
     * @param connectionId the connection that answered
     * @param model the upstream model
     * @param tokens the answer's usage
     * @param latencyMs how long it took
     */
    public void countStep(String keyId, String provider, String connectionId, String model, TokenCounts tokens, long latencyMs) {
        record(clock.millis(), keyId, Api.COMBO_STEP, provider, connectionId, model, tokens, 200, latencyMs, 1);
    }

    /** {@link #record(RequestRecord, int, long)} by its fields. */
    boolean record(long startedAtMs, String keyId, String api, String provider, String connectionId, String model, TokenCounts tokens,
            int status, long latencyMs, int attempts) {
        return buckets.add(new UsageBuckets.Key(UsageAggregate.minuteOf(startedAtMs), keyId, api, provider, connectionId, model), tokens,
                status >= 400, latencyMs, attempts);
    }

    /**
     * Adds every bucket (the current minute's too) to the table now; prunes the table once per
     * {@link #PRUNE_EVERY}. What the database refuses is kept for the next flush.
     *
     * @return true when everything counted so far is in the table
     */
    public boolean flush() {
        lock.lock();
        try {
            long now = clock.millis();
            for (UsageAggregate a : buckets.drain(UsageAggregate.minuteOf(now))) {
                pending.merge(key(a), a, UsageAggregate::plus);
            }
            boolean written = write();
            reportDropped();
            if (now - lastPrune >= PRUNE_EVERY.toMillis() || lastPrune == Long.MIN_VALUE) {
                lastPrune = now;
                try {
                    store.prune(now - RETENTION.toMillis(), MAX_ROWS);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "usage: pruning the table failed: " + e);
                }
            }
            return written;
        } finally {
            lock.unlock();
        }
    }

    private boolean write() {
        if (pending.isEmpty()) {
            return true;
        }
        try {
            store.add(List.copyOf(pending.values()));
            pending.clear();
            return true;
        } catch (RuntimeException e) {
            if (pending.size() > MAX_BUCKETS) {
                LOG.log(System.Logger.Level.WARNING, "usage: writing " + pending.size() + " minute aggregates failed, dropped: " + e);
                pending.clear();
            } else {
                LOG.log(System.Logger.Level.WARNING, "usage: writing " + pending.size() + " minute aggregates failed, kept for the next flush: "
                        + e);
            }
            return false;
        }
    }

    private void reportDropped() {
        long dropped = buckets.dropped();
        if (dropped > droppedReported) {
            LOG.log(System.Logger.Level.WARNING, "usage: " + (dropped - droppedReported) + " requests not counted: more than " + MAX_BUCKETS
                    + " buckets (minute, key, provider, connection, model) at once");
            droppedReported = dropped;
        }
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            // a thrown exception would cancel the timer: the next flush retries
            LOG.log(System.Logger.Level.WARNING, "usage: flush failed: " + e);
        }
    }

    private static UsageBuckets.Key key(UsageAggregate a) {
        return new UsageBuckets.Key(a.minute(), a.keyId(), a.api(), a.provider(), a.connectionId(), a.model());
    }

    /**
     * Totals of the table and of what is still in memory, as {@link UsageTotals#totals} (ranges
     * match the minute a request arrived in).
     */
    @Override
    public List<Sums> totals(long from, long to, GroupBy groupBy) {
        lock.lock();
        try {
            List<Sums> parts = new ArrayList<>(store.totals(from, to, groupBy));
            for (UsageAggregate a : pending.values()) {
                add(parts, a, from, to, groupBy);
            }
            for (UsageAggregate a : buckets.snapshot()) {
                add(parts, a, from, to, groupBy);
            }
            return Sums.merge(parts);
        } finally {
            lock.unlock();
        }
    }

    private static void add(List<Sums> parts, UsageAggregate a, long from, long to, GroupBy groupBy) {
        if (a.minute() >= from && a.minute() < to) {
            parts.add(Sums.of(groupBy.of(a), a));
        }
    }

    /** @return buckets held in memory now */
    int buckets() {
        return buckets.size();
    }

    /** Stops the timer and adds everything still in memory to the table. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            lock.unlock();
        }
        if (timer != null) {
            // not shutdownNow: interrupting a write in progress could break the database connection; flush() waits for it
            timer.shutdown();
        }
        if (!flush()) {
            LOG.log(System.Logger.Level.WARNING, "usage: the last minutes' counts could not be written at shutdown");
        }
    }
}
