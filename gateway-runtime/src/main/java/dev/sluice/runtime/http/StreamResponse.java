package dev.sluice.runtime.http;

import dev.sluice.runtime.protocol.StreamWire;
import dev.sluice.runtime.telemetry.RequestRecord;
import dev.sluice.runtime.routing.Caller;
import dev.sluice.runtime.routing.ClientLiveness;
import dev.sluice.runtime.routing.Outcome;
import dev.sluice.runtime.routing.Route;
import dev.sluice.runtime.store.Secrets;
import dev.sluice.runtime.stream.Pump;
import dev.sluice.runtime.stream.Signal;
import dev.sluice.runtime.stream.StreamEnding;
import dev.sluice.runtime.stream.StreamRelay;
import dev.sluice.runtime.stream.StreamRules;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;

/**
 * Renders a committed stream, watched by the stream watchdogs (SPEC §15), in one client protocol:
 * the stream headers, each frame written and flushed as it comes (nothing is buffered), keep-alives
 * while the upstream is silent, an in-band error when a watchdog or the upstream ends it, and how
 * it ended reported to the served outcome. After the first byte a stream is never replayed.
 */
final class StreamResponse {

    private static final System.Logger LOG = System.getLogger(StreamResponse.class.getName());

    private StreamResponse() {
    }

    /**
     * Relays the stream and records how it ended.
     *
     * @param res the response
     * @param record the request's record (usage of the frames, how the stream ended)
     * @param served the served outcome (its admission is closed by the caller)
     * @param caller the caller (whether the client is still there)
     * @param requestId the request id
     * @param prefix the frames read before the commit
     * @param rest the rest of the stream
     * @param signal what a frame proves
     * @param rules the watchdogs' settings
     * @param startedNanos when the attempt started
     * @param wire the client protocol
     * @param <T> the frame type
     */
    static <T> void send(ServerResponse res, RequestRecord record, Outcome.Served served, Caller caller, String requestId, List<T> prefix, Pump<T> rest,
            Function<T, Signal> signal, StreamRules rules, long startedNanos, StreamWire<T> wire) {
        Route route = served.route();
        res.status(Status.OK_200);
        RoutedAnswers.streamHeaders(res);
        StreamEnding ending;
        String[] detail = {null};
        // issue 28: the client's close interrupts the relay at once (its socket is watched, not only
        // written to), which ends the upstream request with the pump
        Thread relaying = Thread.currentThread();
        ClientLiveness.GoneWatch gone = caller.client().whenGone(relaying::interrupt);
        try (OutputStream out = res.outputStream()) {
            ending = StreamRelay.relay(prefix, rest, new StreamRelay.Sink<T>() {
                @Override
                public void frame(T frame) throws IOException {
                    // usage is read before the client's wire may leave it out (a usage chunk the client did not ask for)
                    record.frame(frame);
                    write(out, wire.frame(frame));
                }

                @Override
                public void keepAlive() throws IOException {
                    write(out, wire.keepAlive());
                }

                @Override
                public void error(String code, String message, boolean watchdog) throws IOException {
                    String safe = Secrets.scrub(message, served.connection());
                    detail[0] = safe;
                    LOG.log(System.Logger.Level.WARNING, "request " + requestId + ": stream of " + route.provider().id()
                            + (watchdog ? " ended by the gateway: " : " failed mid-stream: ") + safe);
                    String text = "[" + route.provider().id() + "/" + route.upstreamModel() + "] " + (watchdog ? "" : "upstream stream failed: ")
                            + safe;
                    write(out, wire.error(code, text, watchdog));
                }

                @Override
                public void end() throws IOException {
                    write(out, wire.end());
                }
            }, signal, rules, startedNanos, System::nanoTime, caller.client()::connected);
            gone.close();
            if (Thread.interrupted()) {
                // the watch's interrupt: cleared before the response is closed and the connection reads again
                ending = StreamEnding.CLIENT_GONE;
            }
        } catch (IOException | UncheckedIOException e) {
            ending = StreamEnding.CLIENT_GONE;
        } finally {
            gone.close();
            if (Thread.interrupted()) {
                ending = StreamEnding.CLIENT_GONE;
            }
        }
        if (ending == StreamEnding.CLIENT_GONE) {
            // the upstream request was ended with the pump: nothing else to do
            LOG.log(System.Logger.Level.DEBUG, "request " + requestId + ": client disconnected during stream");
        }
        served.streamEnded(ending, detail[0]);
        record.streamEnded(ending);
    }

    /**
     * The largest single write of a stream or a large answer. Until issue 26 the server queued 32
     * writes per connection, whatever their size, and a queued write kept the array it was cut
     * from: 32 whole events of 4 MiB from a hostile upstream could wait there for a slow client,
     * past the pump's bounds (issue 29), and a 12 MiB answer stayed on the heap, uncounted, after its
     * request ended (seen in a heap dump: five of them waiting at once). Writes are direct now
     * ({@code SluiceServer.WRITE_QUEUE_LENGTH} 0: a write returns when the socket took it), and
     * larger writes still go out as copied slices, so that nothing below this class holds more
     * than 64 KiB of a body for a slow client whatever the server's write path.
     */
    static final int MAX_WRITE_BYTES = 64 * 1024;

    static void write(OutputStream out, byte[] bytes) throws IOException {
        if (bytes.length > 0) {
            writeSliced(out, bytes);
            out.flush();
        }
    }

    /**
     * Writes bytes in copied slices of {@link #MAX_WRITE_BYTES} (one write, uncopied, when they fit
     * in one); the copies cost a pass over large bodies only.
     *
     * @param out the response stream
     * @param bytes what to write
     * @throws IOException when the client is gone
     */
    static void writeSliced(OutputStream out, byte[] bytes) throws IOException {
        if (bytes.length <= MAX_WRITE_BYTES) {
            out.write(bytes);
            return;
        }
        for (int off = 0; off < bytes.length; off += MAX_WRITE_BYTES) {
            out.write(java.util.Arrays.copyOfRange(bytes, off, Math.min(bytes.length, off + MAX_WRITE_BYTES)));
        }
    }
}
