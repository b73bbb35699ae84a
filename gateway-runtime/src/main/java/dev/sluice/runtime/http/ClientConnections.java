package dev.sluice.runtime.http;

import dev.sluice.runtime.config.ClientLimits;
import dev.sluice.runtime.routing.ClientLiveness;
import dev.sluice.runtime.routing.ClientLiveness.GoneWatch;
import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.buffers.DataWriter;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.PeerInfo;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ListenerContext;
import io.helidon.webserver.ProxyProtocolData;
import io.helidon.webserver.Router;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

/**
 * Tells a request handler when its HTTP/1 client has gone away (CO-3: a wait ends early when the
 * client disconnects). Helidon SE 4 gives handlers no connection-closed signal, so this selector
 * stands in front of Helidon's own HTTP/1 selector (same default configuration) and gives each
 * connection a reader Sluice can watch ({@link SocketWatcher}): while a handler waits, one virtual
 * thread blocks in the connection's next read, and the client's close is told to the work that
 * asked ({@link ClientLiveness#whenGone}, issue 28). Requests that never wait never start a watcher
 * and pay nothing but one indirection per read.
 */
public final class ClientConnections implements ServerConnectionSelector {

    private static final ThreadLocal<Watched> CURRENT = new ThreadLocal<>();
    /** How many bytes without a line end are gathered before the request line is left to Helidon (which answers 414). */
    private static final int PROLOGUE_LIMIT = 8192;

    private final ServerConnectionSelector http1;
    private final OpenConnections open;

    private ClientConnections(OpenConnections open) {
        this.http1 = Http1ConnectionSelector.builder().config(Http1Config.create()).build();
        this.open = open;
        OpenConnections.patrol(open);
    }

    /**
     * The selector, with the bounds of issue 19 and 29: a new connection that sends nothing within
     * {@code firstByteTimeout}, a request head not whole {@code requestHeadTimeout} after its first
     * byte, and a read between requests or of a body that blocks past {@code idleTimeout} get their
     * socket closed; past {@code maxConnections} the oldest connection waiting for a request is
     * closed to make room (see {@link OpenConnections}). The liveness watcher's reads are not bounded.
     * The listener must have no other connection selector (no discovered protocols): with two,
     * Helidon reads a connection's first bytes itself, without a bound, before choosing one.
     *
     * @param limits the first-byte and head timeouts and the connection cap
     * @param idleTimeout the bound on one read between requests or of a body
     * @return a new selector
     */
    public static ServerConnectionSelector create(ClientLimits limits, java.time.Duration idleTimeout) {
        return new ClientConnections(new OpenConnections(limits.firstByteTimeout().toNanos(), limits.requestHeadTimeout().toNanos(),
                idleTimeout.toNanos(), limits.maxConnections(), System::nanoTime));
    }

    /**
     * The liveness of the client that sent a request, for handlers running on the request's
     * connection thread (HTTP/1 in Helidon SE 4); {@link ClientLiveness#ALWAYS} otherwise.
     *
     * @param req the request
     * @return its client's liveness
     */
    static ClientLiveness of(ServerRequest req) {
        Watched w = CURRENT.get();
        return w != null && w.childSocketId().equals(req.socketId()) ? w : ClientLiveness.ALWAYS;
    }

    /**
     * Registers the filter that ends a connection once a request that asked for it
     * ({@code Connection: close}, and every HTTP/1.0 request) is answered: Helidon writes the header
     * but would wait for the client's next request; the client may be waiting for the close (an
     * HTTP/1.0 body without a length ends there).
     *
     * @param routing the routing to add it to
     */
    static void register(io.helidon.webserver.http.HttpRouting.Builder routing) {
        routing.addFilter((chain, req, res) -> {
            Watched w = CURRENT.get();
            if (w != null && !w.childSocketId().equals(req.socketId())) {
                w = null;
            }
            if (w != null) {
                // the head is whole: its deadline no longer applies, and the connection is not one to close for room
                w.phase = OpenConnections.Phase.BUSY;
            }
            try {
                chain.proceed();
            } finally {
                if (w != null) {
                    w.phase = OpenConnections.Phase.IDLE;
                }
                answered(req, res);
            }
        });
    }

    /**
     * Ends the connection after this answer when the request asked for it. Only once the answer is
     * sent: an answer the error mapper still has to write (the handler threw) calls this itself.
     *
     * @param req the request
     * @param res its response
     */
    static void answered(ServerRequest req, io.helidon.webserver.http.ServerResponse res) {
        // contains first: most requests carry no Connection header, and containsToken streams over every value
        if (!res.isSent() || !req.headers().contains(io.helidon.http.HeaderNames.CONNECTION)
                || !req.headers().containsToken(io.helidon.http.HeaderValues.CONNECTION_CLOSE)) {
            return;
        }
        Watched w = CURRENT.get();
        if (w != null && w.childSocketId().equals(req.socketId())) {
            w.closeNext = true;
        }
    }

    @Override
    public int bytesToIdentifyConnection() {
        return http1.bytesToIdentifyConnection();
    }

    /**
     * Every connection: HTTP/1.1 goes to Helidon as it is, HTTP/1.0 through {@link Http10}, a
     * request line naming another version gets a 505 and a line Helidon cannot parse its 400/414 —
     * where Helidon's own selector would refuse them and the client would get an empty reply.
     */
    @Override
    public Support supports(BufferData data) {
        return Support.SUPPORTED;
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        return http1.supportedApplicationProtocols();
    }

    @Override
    public ServerConnection connection(ConnectionContext ctx) {
        // Helidon runs the connection — and, for HTTP/1, every handler of it — on this thread
        Watched watched = new Watched(ctx, open);
        if (!open.admit(watched)) {
            // every connection is inside a request: this one is refused rather than one of theirs
            watched.close();
            return AdmittedConnection.REFUSED;
        }
        CURRENT.set(watched);
        return new AdmittedConnection(http1.connection(watched), () -> open.remove(watched));
    }

    /** A connection whose reads go through {@link #get()}, so a watcher can stand in for them. */
    static final class Watched extends OpenConnections.Entry implements ConnectionContext, ClientLiveness, Supplier<byte[]> {

        private final ConnectionContext ctx;
        private final Http10.ConnectionWriter writer;
        private final DataReader original;
        private final DataReader reader;
        private final SocketWatcher watcher;
        private boolean drained;

        private final OpenConnections open;
        /** The last request asked for the connection to close once it is answered: the next read is its end. */
        volatile boolean closeNext;

        Watched(ConnectionContext ctx, OpenConnections open) {
            super(open.now());
            this.open = open;
            this.ctx = ctx;
            this.original = ctx.dataReader();
            this.reader = DataReader.create(this);
            this.writer = new Http10.ConnectionWriter(ctx.dataWriter());
            this.watcher = new SocketWatcher("sluice-client-watch-" + ctx.childSocketId(), this::readSocket);
        }

        /** The connection's next bytes: what the selector had already read, the watcher's read, or a socket read. */
        @Override
        public byte[] get() {
            if (closeNext) {
                // the answer may still sit in the asynchronous write queue: it goes out before the close
                try {
                    ctx.dataWriter().flush();
                } catch (RuntimeException e) {
                    // the client is gone: nothing to flush to
                }
                return null;
            }
            if (!drained) {
                drained = true;
                int buffered = original.available();
                return prologue(buffered > 0 ? spoke(original.readBytes(buffered)) : boundedRead());
            }
            CompletableFuture<SocketWatcher.Read> w = watcher.take();
            if (w == null) {
                return boundedRead();
            }
            SocketWatcher.Read r;
            // the watcher's read is now the connection's own: bounded by its phase's deadline like any other
            // (every stream starts a watcher: an idle keep-alive connection after it must still be closed in time)
            readDeadline = open.deadline(this, open.now());
            try {
                r = w.join();
            } finally {
                readDeadline = OpenConnections.NOT_READING;
            }
            if (r.failure() != null) {
                throw r.failure();
            }
            return spoke(r.bytes());
        }

        /** Bytes that arrived: when no request was in progress, a request head has begun and its deadline starts. */
        private byte[] spoke(byte[] bytes) {
            if (bytes != null) {
                OpenConnections.Phase p = phase;
                if (p == OpenConnections.Phase.NEW || p == OpenConnections.Phase.IDLE) {
                    headStartedAt = open.now();
                    phase = OpenConnections.Phase.HEAD;
                }
            }
            return bytes;
        }

        @Override
        public boolean connected() {
            return watcher.connected();
        }

        /** Runs the action the moment the watcher's read meets the client's close (issue 28). */
        @Override
        public GoneWatch whenGone(Runnable action) {
            return watcher.whenGone(action);
        }

        /**
         * The connection's first bytes, once the request line is whole: HTTP/1.1 as they are, HTTP/1.0
         * rewritten (the answer converted back), another version answered 505 and the connection ended.
         */
        private byte[] prologue(byte[] first) {
            byte[] head = first;
            if (head == null) {
                return null;
            }
            int lineEnd = indexOf(head, (byte) '\n', 0);
            while (lineEnd < 0) {
                if (head.length > PROLOGUE_LIMIT) {
                    return head; // Helidon answers 414
                }
                byte[] more = boundedRead();
                if (more == null) {
                    return head;
                }
                head = concat(head, more);
                lineEnd = indexOf(head, (byte) '\n', 0);
            }
            switch (Http10.version(head, lineEnd)) {
                case HTTP_1_1 -> {
                    return head;
                }
                case OTHER -> {
                    ctx.dataWriter().writeNow(BufferData.create(Http10.versionNotSupported()));
                    return null;
                }
                default -> {
                    while (Http10.headEnd(head, head.length) < 0 && head.length < Http10.MAX_HEAD) {
                        byte[] more = boundedRead();
                        if (more == null) {
                            return null;
                        }
                        head = concat(head, more);
                    }
                    writer.http10(Http10.isHead(head));
                    return Http10.rewriteRequest(head, ctx.localPeer().host() + ":" + ctx.localPeer().port());
                }
            }
        }

        private static int indexOf(byte[] b, byte v, int from) {
            for (int i = from; i < b.length; i++) {
                if (b[i] == v) {
                    return i;
                }
            }
            return -1;
        }

        private static byte[] concat(byte[] a, byte[] b) {
            byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, c, a.length, b.length);
            return c;
        }

        /** One of the connection's own reads, closed by the patrol when it blocks past its phase's deadline. */
        private byte[] boundedRead() {
            readDeadline = open.deadline(this, open.now());
            byte[] bytes;
            try {
                bytes = readSocket();
            } finally {
                readDeadline = OpenConnections.NOT_READING;
            }
            return spoke(bytes);
        }

        /** Past a deadline or closed for room: the socket is closed, the read fails, Helidon closes the connection. */
        @Override
        void close() {
            try {
                ctx.serverSocket().close();
            } catch (RuntimeException e) {
                // already closed
            }
        }

        /** One blocking read, failures mapped as Helidon's own connection reader maps them. */
        private byte[] readSocket() {
            try {
                return ctx.serverSocket().get();
            } catch (UncheckedIOException e) {
                throw new ServerConnectionException("Failed to get data from socket", e);
            }
        }

        @Override
        public DataReader dataReader() {
            return reader;
        }

        @Override
        public ListenerContext listenerContext() {
            return ctx.listenerContext();
        }

        @Override
        public ExecutorService executor() {
            return ctx.executor();
        }

        @Override
        public DataWriter dataWriter() {
            return writer;
        }

        @Override
        public Router router() {
            return ctx.router();
        }

        @Override
        public Optional<ProxyProtocolData> proxyProtocolData() {
            return ctx.proxyProtocolData();
        }

        @Override
        public HelidonSocket serverSocket() {
            return ctx.serverSocket();
        }

        @Override
        public PeerInfo remotePeer() {
            return ctx.remotePeer();
        }

        @Override
        public PeerInfo localPeer() {
            return ctx.localPeer();
        }

        @Override
        public boolean isSecure() {
            return ctx.isSecure();
        }

        @Override
        public String socketId() {
            return ctx.socketId();
        }

        @Override
        public String childSocketId() {
            return ctx.childSocketId();
        }
    }
}
