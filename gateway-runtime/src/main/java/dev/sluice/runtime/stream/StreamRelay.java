package dev.sluice.runtime.stream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Relays a committed stream to the client and watches it (SPEC ST-0 keep-alives and hard
 * deadline, ST-1 stall, ST-2 throughput): write each upstream chunk as it comes; while the
 * upstream is silent, a keep-alive every {@code keepAliveIntervalMs}; no model output for
 * {@code idleTimeoutMs}, output below the minimum rate, or the attempt's deadline ends the stream
 * with an in-band error in the client's protocol. A client that leaves ends the upstream request at
 * once: its socket's close interrupts the relaying thread (issue 28), and its liveness is also asked
 * at least every second. The upstream is closed on every path.
 */
public final class StreamRelay {

    /** How often the client's connection is asked about while the upstream is silent. */
    static final long LIVENESS_NANOS = 1_000_000_000L;

    private StreamRelay() {
    }

    /**
     * Renders a stream in one client protocol. Each call writes and flushes.
     *
     * @param <T> the frame type
     */
    public interface Sink<T> {
        /**
         * Writes an upstream frame (a heartbeat as the protocol's keep-alive).
         *
         * @param frame the frame
         * @throws IOException when the client is gone
         */
        void frame(T frame) throws IOException;

        /**
         * Writes a keep-alive ({@code : keep-alive} comment, Anthropic {@code ping}).
         *
         * @throws IOException when the client is gone
         */
        void keepAlive() throws IOException;

        /**
         * Ends the stream with an in-band error: a watchdog gave up ({@code watchdog}), or the
         * upstream failed mid-stream.
         *
         * @param code the error code
         * @param message what happened
         * @param watchdog whether one of the gateway's watchdogs ended it
         * @throws IOException when the client is gone
         */
        void error(String code, String message, boolean watchdog) throws IOException;

        /**
         * Ends the stream normally (the protocol's end marker).
         *
         * @throws IOException when the client is gone
         */
        void end() throws IOException;
    }

    /**
     * Relays.
     *
     * @param prefix the frames read before the commit (the readiness gate's)
     * @param rest the rest of the upstream stream
     * @param sink the client protocol
     * @param signal what a frame proves
     * @param rules the watchdogs' settings
     * @param attemptStartedNanos when the attempt started, on {@code nanos}' scale
     * @param nanos the clock
     * @param clientConnected whether the client is still there
     * @param <T> the frame type
     * @return how the stream ended
     */
    public static <T> StreamEnding relay(List<T> prefix, Pump<T> rest, Sink<T> sink, Function<T, Signal> signal, StreamRules rules,
            long attemptStartedNanos, LongSupplier nanos, BooleanSupplier clientConnected) {
        try (rest) {
            long now = nanos.getAsLong();
            StreamTimers timers = new StreamTimers(rules, attemptStartedNanos, now);
            for (T frame : prefix) {
                timers.onFrame(signal.apply(frame), now);
                sink.frame(frame);
            }
            rest.releaseKept();
            timers.onWrite(now);
            while (true) {
                now = nanos.getAsLong();
                if (timers.due(now) == StreamTimers.Due.DEADLINE) {
                    return abort(sink, StreamEnding.DEADLINE, "the attempt ran past streamRecovery.attemptDeadlineMs ("
                            + rules.attemptDeadlineMs() + " ms)");
                }
                // frames that already arrived come first: a client that reads slowly is no stall of the upstream's
                Pump.Item<T> item = rest.poll(0);
                if (item == null) {
                    StreamEnding judged = judge(timers, sink, rules, now);
                    if (judged != null) {
                        return judged;
                    }
                    if (timers.due(now) == StreamTimers.Due.KEEP_ALIVE) {
                        sink.keepAlive();
                        timers.onWrite(now);
                        continue;
                    }
                    if (!clientConnected.getAsBoolean()) {
                        return StreamEnding.CLIENT_GONE;
                    }
                    item = rest.poll(Math.min(timers.waitNanos(now), LIVENESS_NANOS));
                    if (item == null) {
                        continue;
                    }
                }
                switch (item) {
                    case Pump.Next<T> n -> {
                        long at = nanos.getAsLong();
                        timers.onFrame(signal.apply(n.value()), at);
                        sink.frame(n.value());
                        timers.onWrite(at);
                    }
                    case Pump.End<T> e -> {
                        sink.end();
                        return StreamEnding.COMPLETED;
                    }
                    case Pump.Failed<T> f -> {
                        sink.error(StreamEnding.UPSTREAM_FAILED.code(), String.valueOf(f.failure().getMessage()), false);
                        return StreamEnding.UPSTREAM_FAILED;
                    }
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return StreamEnding.CLIENT_GONE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return StreamEnding.CLIENT_GONE;
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                // the client's close interrupted a write (issue 28)
                return StreamEnding.CLIENT_GONE;
            }
            // a renderer's bug after the 200 went out: the stream ends, and is counted as failed
            System.getLogger(StreamRelay.class.getName()).log(System.Logger.Level.WARNING, "stream relay failed: " + e);
            return StreamEnding.UPSTREAM_FAILED;
        }
    }

    /** A stall or a too-slow stream ends it (the caller found no frame waiting). */
    private static StreamEnding judge(StreamTimers timers, Sink<?> sink, StreamRules rules, long now) throws IOException {
        return switch (timers.due(now)) {
            case STALL -> abort(sink, StreamEnding.STALLED, "the upstream sent no model output for " + rules.idleTimeoutMs()
                    + " ms (streamRecovery.idleTimeoutMs)");
            case TOO_SLOW -> abort(sink, StreamEnding.TOO_SLOW, "the upstream's output stayed below "
                    + rules.throughput().minBytesPerSecond() + " bytes/s over " + rules.throughput().windowMs()
                    + " ms (streamRecovery.throughputWatchdog)");
            default -> null;
        };
    }

    private static StreamEnding abort(Sink<?> sink, StreamEnding ending, String message) throws IOException {
        sink.error(ending.code(), message, true);
        return ending;
    }
}
