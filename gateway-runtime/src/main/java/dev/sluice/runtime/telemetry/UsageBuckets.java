package dev.sluice.runtime.telemetry;

import dev.sluice.runtime.store.UsageAggregate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The usage not yet handed to the table, one bucket per minute, key, API, provider, connection
 * and upstream model. Adding a request is a map lookup and a few additions under the bucket's own
 * monitor (held for nanoseconds; requests of different buckets never meet), with no thread woken
 * and nothing allocated but the lookup key. {@link #drain} takes the counts out under the same
 * monitor, so a request is counted in exactly one drain; a bucket of a past minute is retired as
 * it is drained (a request arriving for it later, a long stream's, opens a new one).
 */
final class UsageBuckets {

    /** A bucket's identity. Nulls stand for an unknown key, provider, connection or model. */
    record Key(long minute, String keyId, String api, String provider, String connectionId, String model) {
    }

    /** A bucket's counts, guarded by its monitor. */
    private static final class Counts {
        long requests;
        long errors;
        long prompt;
        long completion;
        long cached;
        long reasoning;
        long latencyMs;
        long attempts;
        /** Removed from the map: an adder that finds it retired looks the key up again. */
        boolean retired;

        UsageAggregate aggregate(Key k) {
            return new UsageAggregate(k.minute(), k.keyId(), k.api(), k.provider(), k.connectionId(), k.model(), requests, errors, prompt,
                    completion, cached, reasoning, latencyMs, attempts);
        }
    }

    private final Map<Key, Counts> live = new ConcurrentHashMap<>();
    private final int maxBuckets;
    private final LongAdder dropped = new LongAdder();

    /**
     * @param maxBuckets buckets held at most; past it a request of a new bucket goes uncounted
     *     (a flood of distinct model names must not grow the heap without bound)
     */
    UsageBuckets(int maxBuckets) {
        this.maxBuckets = maxBuckets;
    }

    /**
     * Counts one request.
     *
     * @return false when it could not be counted (too many buckets)
     */
    boolean add(Key key, TokenCounts t, boolean error, long latencyMs, int attempts) {
        while (true) {
            Counts c = live.get(key);
            if (c == null) {
                if (live.size() >= maxBuckets) {
                    dropped.increment();
                    return false;
                }
                c = live.computeIfAbsent(key, k -> new Counts());
            }
            synchronized (c) {
                if (!c.retired) {
                    c.requests++;
                    c.errors += error ? 1 : 0;
                    c.prompt += t.prompt() == null ? 0 : t.prompt();
                    c.completion += t.completion() == null ? 0 : t.completion();
                    c.cached += t.cached() == null ? 0 : t.cached();
                    c.reasoning += t.reasoning() == null ? 0 : t.reasoning();
                    c.latencyMs += latencyMs;
                    c.attempts += attempts;
                    return true;
                }
            }
        }
    }

    /**
     * Takes every bucket's counts out (the current minute's bucket stays, emptied; past minutes'
     * buckets are retired).
     *
     * @param currentMinute the start of the current minute
     * @return the non-empty buckets' aggregates
     */
    List<UsageAggregate> drain(long currentMinute) {
        List<UsageAggregate> out = new ArrayList<>();
        for (Map.Entry<Key, Counts> e : live.entrySet()) {
            Key k = e.getKey();
            Counts c = e.getValue();
            synchronized (c) {
                if (c.requests > 0) {
                    out.add(c.aggregate(k));
                }
                if (k.minute() < currentMinute) {
                    c.retired = true;
                    live.remove(k, c);
                } else {
                    c.requests = 0;
                    c.errors = 0;
                    c.prompt = 0;
                    c.completion = 0;
                    c.cached = 0;
                    c.reasoning = 0;
                    c.latencyMs = 0;
                    c.attempts = 0;
                }
            }
        }
        return out;
    }

    /** @return the non-empty buckets' aggregates, left in place */
    List<UsageAggregate> snapshot() {
        List<UsageAggregate> out = new ArrayList<>();
        for (Map.Entry<Key, Counts> e : live.entrySet()) {
            Counts c = e.getValue();
            synchronized (c) {
                if (c.requests > 0) {
                    out.add(c.aggregate(e.getKey()));
                }
            }
        }
        return out;
    }

    /** @return buckets held now */
    int size() {
        return live.size();
    }

    /** @return requests not counted because the buckets were full */
    long dropped() {
        return dropped.sum();
    }
}
