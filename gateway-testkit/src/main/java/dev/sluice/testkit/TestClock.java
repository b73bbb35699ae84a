package dev.sluice.testkit;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that only moves when a test moves it. Thread-safe. */
public final class TestClock implements InstantSource {

    private final AtomicLong millis;

    private TestClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    /**
     * A clock at the given instant.
     *
     * @param start the initial time
     * @return the clock
     */
    public static TestClock at(Instant start) {
        return new TestClock(start.toEpochMilli());
    }

    /**
     * A clock at 2026-01-01T00:00:00Z.
     *
     * @return the clock
     */
    public static TestClock create() {
        return at(Instant.parse("2026-01-01T00:00:00Z"));
    }

    /**
     * Moves the clock forward.
     *
     * @param d how far
     */
    public void advance(Duration d) {
        millis.addAndGet(d.toMillis());
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
        return millis.get();
    }
}
