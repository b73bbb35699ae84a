package dev.sluice.runtime.stream;

import java.util.ArrayDeque;

/**
 * The slow-stream watchdog's measure (SPEC ST-2, ST-3): UTF-8 bytes of text deltas over a sliding
 * window. It may judge only after a warm-up from the first output and then one full window, and
 * only a stream that produced at least {@code minMeasurableBytes}; a tool-call or reasoning frame
 * starts the window afresh (judgement is suspended while they stream). Heartbeats, metadata and
 * usage-only frames are neither progress nor a pause.
 */
final class ThroughputMeter {

    private record Sample(long atNanos, int bytes) {
    }

    private final StreamRules.Throughput rules;
    private final long windowNanos;
    private final ArrayDeque<Sample> window = new ArrayDeque<>();
    private long windowBytes;
    private long totalBytes;
    /** The window may be judged from this instant on (warm-up, or the last tool-call/reasoning frame, plus one window). */
    private long judgeFromNanos;

    ThroughputMeter(StreamRules.Throughput rules, long nowNanos) {
        this.rules = rules;
        this.windowNanos = StreamTimers.ms(rules.windowMs());
        this.judgeFromNanos = nowNanos + StreamTimers.ms(rules.warmupMs()) + windowNanos;
    }

    void onFrame(Signal signal, long nowNanos) {
        if (signal.suspendsThroughput()) {
            // a tool call's arguments or reasoning stream slowly by nature: measure afresh after them
            window.clear();
            windowBytes = 0;
            judgeFromNanos = Math.max(judgeFromNanos, nowNanos + windowNanos);
            return;
        }
        int bytes = signal.textBytes();
        if (bytes > 0) {
            window.addLast(new Sample(nowNanos, bytes));
            windowBytes += bytes;
            totalBytes += bytes;
        }
    }

    private void slide(long nowNanos) {
        while (!window.isEmpty() && nowNanos - window.peekFirst().atNanos() > windowNanos) {
            windowBytes -= window.removeFirst().bytes();
        }
    }

    /** @return whether the stream's useful output over the last window is below the minimum rate */
    boolean tooSlow(long nowNanos) {
        if (nowNanos - judgeFromNanos < 0 || totalBytes < rules.minMeasurableBytes()) {
            return false;
        }
        slide(nowNanos);
        return windowBytes * 1_000L < rules.minBytesPerSecond() * rules.windowMs();
    }

    /** @return when the meter may next judge */
    long nextCheckNanos(long nowNanos) {
        return nowNanos - judgeFromNanos < 0 ? judgeFromNanos : nowNanos + Math.min(windowNanos, 1_000_000_000L);
    }

    /** @return total useful bytes so far */
    long totalBytes() {
        return totalBytes;
    }
}
