package dev.sluice.testkit;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a {@link MockUpstream} received: the last {@value #MAX_RECORDED} requests in arrival order,
 * those no test has taken yet, when each one's client left, and the count of all of them.
 */
final class RecordedRequests {

    static final int MAX_RECORDED = 10_000;

    // A lock rather than synchronized: virtual threads must not pin a carrier on Java 21.
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition recordedOne = lock.newCondition();
    private final ArrayDeque<RecordedRequest> recorded = new ArrayDeque<>();
    private final ArrayDeque<RecordedRequest> untaken = new ArrayDeque<>();
    /** Per kept request (by identity): counted down when the client leaves its connection. */
    private final IdentityHashMap<RecordedRequest, CountDownLatch> departures = new IdentityHashMap<>();
    private int count;

    /** Records a request; returns the latch to count down when its client leaves. */
    CountDownLatch record(RecordedRequest request) {
        CountDownLatch gone = new CountDownLatch(1);
        lock.lock();
        try {
            count++;
            RecordedRequest evicted = addBounded(recorded, request);
            if (evicted != null) {
                departures.remove(evicted);
            }
            departures.put(request, gone);
            addBounded(untaken, request);
            recordedOne.signalAll();
        } finally {
            lock.unlock();
        }
        return gone;
    }

    /** Appends, dropping the oldest when full; returns the dropped request or null. */
    private static RecordedRequest addBounded(ArrayDeque<RecordedRequest> deque, RecordedRequest request) {
        RecordedRequest evicted = deque.size() == MAX_RECORDED ? deque.poll() : null;
        deque.add(request);
        return evicted;
    }

    List<RecordedRequest> all() {
        lock.lock();
        try {
            return List.copyOf(recorded);
        } finally {
            lock.unlock();
        }
    }

    RecordedRequest take(Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (untaken.isEmpty()) {
                if (nanos <= 0) {
                    return null;
                }
                nanos = recordedOne.awaitNanos(nanos);
            }
            return untaken.poll();
        } finally {
            lock.unlock();
        }
    }

    boolean awaitClientGone(RecordedRequest request, Duration timeout) throws InterruptedException {
        requireNonNull(request, "request is null");
        CountDownLatch gone;
        lock.lock();
        try {
            gone = departures.get(request);
        } finally {
            lock.unlock();
        }
        if (gone == null) {
            throw new IllegalArgumentException("not a request this upstream keeps: " + request.method() + " " + request.path());
        }
        return gone.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    int count() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }

    void clear() {
        lock.lock();
        try {
            recorded.clear();
            untaken.clear();
            departures.clear();
            count = 0;
        } finally {
            lock.unlock();
        }
    }
}
