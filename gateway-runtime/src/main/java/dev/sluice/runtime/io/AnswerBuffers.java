package dev.sluice.runtime.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whole upstream answers read into memory under two bounds (issue 19): one answer is at most
 * {@code maxAnswerBytes}, and the large answers being handled at the same time together hold at
 * most {@code budgetBytes}. An answer is counted from its reading to the end of its request (when
 * it is read within {@link #withinRequest}): its chunks, its copy into one array, and what parsing,
 * translating and rendering it make of it ({@link #handlingRoom}: a multiple of its size, more for
 * two-byte text, and a share for each of its JSON tokens, so a tree of millions of small values is
 * counted as the hundreds of MiB it would be, issue 29). Answers up to {@value #FREE_BYTES} bytes
 * are not counted, so ordinary traffic never meets the budget. Room is taken in steps as an answer
 * grows, so six hostile 300 MB answers at once fail their attempts instead of exhausting the heap.
 * Past either bound the read fails with a {@link ProtocolException} naming the setting; nothing
 * blocks. An answer read alone gets its room up to {@link #maxRoom()} (the budget, or
 * {@value #MAX_ROOM_FACTOR} times {@code maxAnswerBytes}: what the largest answer of plain text
 * holds); one that needs more is refused even alone.
 *
 * <p>Streams share the same budget (issue 29): a stream frame of {@value #LARGE_FRAME_BYTES} bytes
 * or more holds {@value #STREAM_FACTOR} times its size while in flight ({@link #takeStreamed}), and
 * a stream's body is bounded in all by {@code upstream.maxStreamBytes} ({@link #streamed}).
 */
public final class AnswerBuffers {

    /** The step in which room is taken. */
    static final int STEP = 64 * 1024;
    /** Answers up to this size are not counted. */
    static final int FREE_BYTES = 256 * 1024;
    /** Room held for what handling an answer makes of it, in multiples of its size. */
    static final int PROCESSING_FACTOR = 4;
    /**
     * More room for an answer whose text decodes to characters past Latin-1, in multiples of its
     * size: Jackson's text buffer, its builder and the string each hold two bytes a character.
     */
    static final int WIDE_FACTOR = 2;
    /**
     * Room for each JSON token of a large answer: the heap a tree holds for one, rounded up from the
     * most measured (79 B a token for an object of short string fields, Jackson 2.21, compressed oops).
     */
    static final int TOKEN_BYTES = 96;
    /**
     * What the largest answer of plain text holds, in multiples of {@code maxAnswerBytes}: its chunks,
     * their copy, its handling, its two-byte characters. One answer alone gets up to this much room
     * (or the budget, when larger); an answer that needs more, such as millions of small JSON values,
     * is refused even alone.
     */
    static final int MAX_ROOM_FACTOR = 2 + PROCESSING_FACTOR + WIDE_FACTOR;
    /** The releases of the answers read by the request running on this thread, when in {@link #withinRequest}. */
    private static final ThreadLocal<java.util.List<Runnable>> REQUEST = new ThreadLocal<>();

    /** The default time bounds of whole answers: 30 s of silence, 180 s from request to last byte. */
    public static final AnswerWatch DEFAULT_WATCH = new AnswerWatch(30_000, 180_000, System::nanoTime);
    /** The default bound on one streamed answer: 128 MiB. */
    public static final long DEFAULT_MAX_STREAM_BYTES = 128L * 1024 * 1024;
    /** The defaults: 16 MiB per answer, 4 MiB per event, 64 MiB for all answers being read, 128 MiB per stream. */
    public static final AnswerBuffers DEFAULTS = new AnswerBuffers(16L * 1024 * 1024, 4 * 1024 * 1024, 64L * 1024 * 1024,
            DEFAULT_MAX_STREAM_BYTES, DEFAULT_WATCH);
    /** Stream frames from this size on are large: counted against the budget, and relayed one at a time (issue 29). */
    public static final int LARGE_FRAME_BYTES = 64 * 1024;
    /** Room held for a large stream frame in flight, in multiples of its size: its bytes, its text, its rendering. */
    static final int STREAM_FACTOR = 3;

    private final long maxAnswerBytes;
    private final int maxEventBytes;
    private final long budgetBytes;
    private final long maxStreamBytes;
    private final long maxRoom;
    private final AtomicLong inUse = new AtomicLong();
    private final AnswerWatch watch;

    /**
     * @param maxAnswerBytes the most bytes of one answer
     * @param maxEventBytes the most bytes of one stream event (carried for the readers of streams)
     * @param budgetBytes the most bytes of all answers being read at once
     * @param maxStreamBytes the most bytes of one streamed answer ({@code upstream.maxStreamBytes})
     * @param watch how long a whole answer may take ({@code upstream.bodyIdleTimeoutMs}, {@code upstream.answerDeadlineMs})
     */
    public AnswerBuffers(long maxAnswerBytes, int maxEventBytes, long budgetBytes, long maxStreamBytes, AnswerWatch watch) {
        this.watch = java.util.Objects.requireNonNull(watch, "watch is null");
        this.maxAnswerBytes = maxAnswerBytes;
        this.maxEventBytes = maxEventBytes;
        this.budgetBytes = budgetBytes;
        this.maxStreamBytes = maxStreamBytes;
        this.maxRoom = Math.max(budgetBytes, MAX_ROOM_FACTOR * maxAnswerBytes);
    }


    /** @return how long a whole answer may take (issue 28) */
    public AnswerWatch watch() {
        return watch;
    }

    /**
     * An upstream stream's body, bounded to {@code upstream.maxStreamBytes} in all: past it a read
     * fails with a {@link ProtocolException} naming the setting (the stream ends with the client
     * protocol's error event). Costs one add per read call, not per byte.
     *
     * @param body the body of a streamed answer
     * @return the bounded body
     */
    public InputStream streamed(InputStream body) {
        return new StreamedBody(body, maxStreamBytes);
    }

    /**
     * Takes room for one stream frame in flight (read, waiting or being written) from the shared
     * budget. Frames under {@link #LARGE_FRAME_BYTES} are free: ordinary streams never meet the
     * budget, and their hot path does no atomic work.
     *
     * @param frameBytes the frame's size
     * @return the room taken, to give back with {@link #release}; 0 for a small frame
     * @throws ProtocolException when the budget is used up by others (a frame alone always gets its room)
     */
    public long takeStreamed(int frameBytes) throws ProtocolException {
        if (frameBytes < LARGE_FRAME_BYTES) {
            return 0;
        }
        long room = (long) STREAM_FACTOR * frameBytes;
        long now = inUse.addAndGet(room);
        if (now > budgetBytes && now - room > 0) {
            inUse.addAndGet(-room);
            throw new ProtocolException("Sluice is relaying too many large upstream stream events at once (upstream.answerBufferBytes "
                    + budgetBytes + " bytes); this stream was ended");
        }
        return room;
    }

    /**
     * Refuses a large stream event whose JSON tree would be more than {@value #STREAM_FACTOR} times
     * its size, the room a frame in flight is counted as (issue 29): the same tokens that make a
     * whole answer's tree hundreds of MiB make one event of {@code upstream.maxEventBytes} tens of
     * MiB, parsed before its room is taken. An honest event that large is text (a delta, tool
     * arguments), a few tokens. One streaming pass, for events of {@link #LARGE_FRAME_BYTES} and up.
     *
     * @param data the event's data
     * @throws ProtocolException when it holds too many JSON values for its size
     */
    public static void checkStreamEvent(String data) throws ProtocolException {
        if (data.length() < LARGE_FRAME_BYTES) {
            return;
        }
        long most = (long) STREAM_FACTOR * data.length() / TOKEN_BYTES;
        if (AnswerShape.tokens(data, most + 1) > most) {
            throw new ProtocolException("the upstream sent a stream event of " + data.length() + " characters holding more than " + most
                    + " JSON values (too many JSON values for its size: parsed, it would hold more than " + STREAM_FACTOR
                    + " times its size); the stream was ended");
        }
    }

    /**
     * Gives back room taken by {@link #takeStreamed}.
     *
     * @param room the room, 0 for none
     */
    public void release(long room) {
        if (room > 0) {
            inUse.addAndGet(-room);
        }
    }

    /** @return the most bytes of one stream event */
    public int maxEventBytes() {
        return maxEventBytes;
    }

    /**
     * Reads an upstream's whole answer, sized by its {@code Content-Length} when it declares one.
     *
     * @param response the answer
     * @return the body
     * @throws IOException on a read failure, or a {@link ProtocolException} past a bound
     */
    public byte[] read(dev.sluice.api.upstream.UpstreamResponse response) throws IOException {
        long declared = response.head().first("content-length").map(v -> {
            try {
                return Long.parseLong(v.strip());
            } catch (NumberFormatException e) {
                return -1L;
            }
        }).orElse(-1L);
        return read(response.body(), declared);
    }

    /** @return bytes of answers being read now (for tests and diagnostics) */
    public long inUse() {
        return inUse.get();
    }

    /**
     * Reads a whole body.
     *
     * @param in the body
     * @param declaredLength its {@code Content-Length}, or -1
     * @return the body
     * @throws IOException on a read failure, or a {@link ProtocolException} past a bound
     */
    public byte[] read(InputStream in, long declaredLength) throws IOException {
        if (declaredLength > maxAnswerBytes) {
            throw tooLarge();
        }
        Read r = new Read();
        boolean kept = false;
        try {
            byte[] body = r.readAll(in, declaredLength);
            if (body.length > FREE_BYTES) {
                r.take(handlingRoom(body));
            }
            java.util.List<Runnable> request = REQUEST.get();
            if (request != null && r.held > 0) {
                request.add(r::release);
                kept = true;
            }
            return body;
        } finally {
            if (!kept) {
                r.release();
            }
        }
    }

    /**
     * The room for what handling a large answer makes of it (issue 29): {@value #PROCESSING_FACTOR}
     * times its size (its text, a copy written again); {@value #WIDE_FACTOR} times more when its text
     * decodes to two-byte characters; and {@value #TOKEN_BYTES} bytes for each of its JSON tokens, the
     * tree that parsing builds of it. Counted before anyone parses it ({@link AnswerShape}), so an
     * answer whose tree would not fit is refused instead of parsed.
     *
     * @param body the answer
     * @return the room, bytes
     */
    long handlingRoom(byte[] body) {
        AnswerShape shape = AnswerShape.of(body, maxRoom / TOKEN_BYTES + 1);
        return (long) (shape.wide() ? PROCESSING_FACTOR + WIDE_FACTOR : PROCESSING_FACTOR) * body.length + TOKEN_BYTES * shape.tokens();
    }

    /** @return the most room one answer may hold, even alone: the budget, or what the largest answer of plain text needs */
    long maxRoom() {
        return maxRoom;
    }

    /**
     * Runs a request: the room of the answers it reads on this thread is held until it ends (its
     * answer parsed, translated and written), not only while they are read.
     *
     * @param request the request's handling
     */
    public static void withinRequest(Runnable request) {
        java.util.List<Runnable> outer = REQUEST.get();
        java.util.List<Runnable> releases = new java.util.ArrayList<>(1);
        REQUEST.set(releases);
        try {
            request.run();
        } finally {
            REQUEST.set(outer);
            releases.forEach(Runnable::run);
        }
    }

    /** One answer being read: its chunks and the room it holds. */
    private final class Read {
        final java.util.List<byte[]> chunks = new java.util.ArrayList<>();
        long size;
        long held;
        private int fill = STEP;

        byte[] readAll(InputStream in, long declaredLength) throws IOException {
            if (declaredLength >= 0) {
                // sized by its Content-Length: one array, read to the end so the connection can be pooled
                if (declaredLength > FREE_BYTES) {
                    take(declaredLength);
                }
                byte[] exact = new byte[(int) declaredLength];
                int n = in.readNBytes(exact, 0, exact.length);
                if (n < exact.length) {
                    return java.util.Arrays.copyOf(exact, n);
                }
                int next = in.read();
                if (next < 0) {
                    return exact;
                }
                chunks.add(exact);
                size = exact.length;
                append(new byte[] {(byte) next}, 1);
            }
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0; ) {
                append(buf, n);
            }
            return whole();
        }

        void release() {
            inUse.addAndGet(-held);
            held = 0;
        }

        void append(byte[] b, int n) throws ProtocolException {
            if (size + n > maxAnswerBytes) {
                throw tooLarge();
            }
            for (int off = 0; off < n; ) {
                if (fill == STEP) {
                    if (size >= FREE_BYTES) {
                        take(STEP);
                    }
                    chunks.add(new byte[STEP]);
                    fill = 0;
                }
                int k = Math.min(n - off, STEP - fill);
                System.arraycopy(b, off, chunks.getLast(), fill, k);
                fill += k;
                off += k;
                size += k;
            }
        }

        /** The chunks as one array (room for the copy is taken too: both live until it is done). */
        byte[] whole() throws ProtocolException {
            if (size > FREE_BYTES) {
                take(size);
            }
            byte[] all = new byte[(int) size];
            int at = 0;
            for (byte[] c : chunks) {
                int k = (int) Math.min(c.length, size - at);
                System.arraycopy(c, 0, all, at, k);
                at += k;
            }
            return all;
        }

        /**
         * Takes room from the budget. An answer read alone gets it up to {@link #maxRoom()} (the
         * budget is at least one answer of plain text); past that it is refused even alone.
         */
        void take(long bytes) throws ProtocolException {
            if (held + bytes > maxRoom) {
                throw new ProtocolException("upstream answer would need at least " + (held + bytes) + " bytes of memory to handle, more than"
                        + " one answer may hold (upstream.answerBufferBytes " + budgetBytes + " bytes, or " + MAX_ROOM_FACTOR
                        + " times upstream.maxAnswerBytes); it holds too many JSON values for its size; this answer was not buffered");
            }
            long now = inUse.addAndGet(bytes);
            if (now > budgetBytes && now - held - bytes > 0) {
                inUse.addAndGet(-bytes);
                throw new ProtocolException("Sluice is reading too many large upstream answers at once (upstream.answerBufferBytes "
                        + budgetBytes + " bytes); this answer was not buffered");
            }
            held += bytes;
        }
    }

    private ProtocolException tooLarge() {
        return new ProtocolException("upstream answer exceeds upstream.maxAnswerBytes (" + maxAnswerBytes + " bytes)");
    }
}
