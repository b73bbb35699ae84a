package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.runtime.http.OpenConnections.Phase;
import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.buffers.DataWriter;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.PlainSocket;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ServerConnectionException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The reader {@link ClientConnections} puts in front of each client connection, without a server:
 * a real loopback socket pair (the point is what a blocked socket read does), a monotonic clock the
 * test moves and the patrol's sweep called by hand. It covers the races of issue 19/28/29: a read
 * past its phase's bound closed by the sweep, the head bound counted from the first byte, the
 * peer's close met by the reader or by the liveness watcher without a byte lost, room made at the
 * cap by closing a real idle socket, and the request line's version (HTTP/1.0 rewritten, others 505).
 */
class ClientConnectionsTest {

    private static final long S = 1_000_000_000L;

    private final AtomicLong nanos = new AtomicLong(-3 * S); // monotonic time may be negative
    private final OpenConnections open = new OpenConnections(10 * S, 30 * S, 60 * S, 2, nanos::get);
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeAfter) {
            try {
                c.close();
            } catch (Exception e) {
                // closed by the test already (the sweep, the cap, the peer)
            }
        }
    }

    /** What the connection wrote to its client, as Helidon's writer would have sent it. */
    static final class Written implements DataWriter {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final AtomicInteger flushes = new AtomicInteger();

        @Override
        public synchronized void write(BufferData... buffers) {
            for (BufferData b : buffers) {
                write(b);
            }
        }

        @Override
        public synchronized void write(BufferData buffer) {
            bytes.writeBytes(buffer.readBytes());
        }

        @Override
        public void writeNow(BufferData... buffers) {
            write(buffers);
        }

        @Override
        public void writeNow(BufferData buffer) {
            write(buffer);
        }

        @Override
        public void flush() {
            flushes.incrementAndGet();
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.ISO_8859_1);
        }
    }

    /** One accepted loopback connection: the client's socket, and the server side as Helidon would hand it over. */
    final class Pair {
        final Socket client;
        final HelidonSocket server;
        final Written written = new Written();
        final ClientConnections.Watched watched;

        Pair() throws IOException {
            try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                client = new Socket(InetAddress.getLoopbackAddress(), listener.getLocalPort());
                client.setSoTimeout(10_000);
                Socket accepted = listener.accept();
                server = PlainSocket.server(accepted, "child-" + accepted.getPort(), "listener");
            }
            closeAfter.add(client);
            closeAfter.add(server::close);
            watched = new ClientConnections.Watched(context(server, written), open);
        }

        void send(String text) throws IOException {
            client.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
            client.getOutputStream().flush();
        }

        /** The connection's next read, on a thread of its own (it blocks until bytes, the end, or its close). */
        CompletableFuture<byte[]> readLater() {
            CompletableFuture<byte[]> f = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    f.complete(watched.get());
                } catch (Throwable t) {
                    f.completeExceptionally(t);
                }
            });
            return f;
        }

        /** Waits until the connection's read is under way, and returns its deadline. */
        long awaitReading() {
            await().atMost(Duration.ofSeconds(5)).until(() -> watched.readDeadline != OpenConnections.NOT_READING);
            return watched.readDeadline;
        }

        /** True once the client sees the end of the stream (the server closed its socket). */
        boolean clientSeesClose() throws IOException {
            InputStream in = client.getInputStream();
            return in.read() == -1;
        }
    }

    /** The connection context Helidon hands a selector: only what the reader uses answers. */
    private static ConnectionContext context(HelidonSocket socket, DataWriter writer) {
        DataReader reader = DataReader.create(socket);
        return (ConnectionContext) Proxy.newProxyInstance(ConnectionContext.class.getClassLoader(), new Class<?>[] {ConnectionContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "dataReader" -> reader;
                    case "dataWriter" -> writer;
                    case "serverSocket" -> socket;
                    case "localPeer" -> socket.localPeer();
                    case "remotePeer" -> socket.remotePeer();
                    case "childSocketId" -> socket.childSocketId();
                    case "socketId" -> socket.socketId();
                    case "isSecure" -> false;
                    case "toString" -> "context of " + socket.childSocketId();
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private Pair admitted() throws IOException {
        Pair p = new Pair();
        assertThat(open.admit(p.watched)).isTrue();
        return p;
    }

    private void advance(long n) {
        nanos.addAndGet(n);
        open.sweep();
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static Throwable failure(CompletableFuture<?> f) {
        try {
            f.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("the read did not end", e);
        }
        throw new AssertionError("the read did not fail");
    }

    @Test
    void aClientSilentPastTheFirstByteBoundHasItsBlockedReadClosed() throws Exception {
        Pair p = admitted();
        long accepted = nanos.get();
        CompletableFuture<byte[]> read = p.readLater();
        assertThat(p.awaitReading()).as("bounded from the acceptance").isEqualTo(accepted + 10 * S);
        advance(10 * S - 1);
        assertThat(open.size()).isOne();
        assertThat(read).isNotDone();
        advance(1);
        assertThat(failure(read)).isInstanceOf(ServerConnectionException.class);
        assertThat(open.size()).isZero();
        assertThat(p.clientSeesClose()).isTrue();
    }

    @Test
    void aRequestHeadIsBoundedFromItsFirstByteHoweverOftenBytesArrive() throws Exception {
        Pair p = admitted();
        advance(4 * S);
        p.send("GET /v1/models HTTP/1.1\r\n");
        long firstByte = nanos.get();
        assertThat(text(p.watched.get())).isEqualTo("GET /v1/models HTTP/1.1\r\n");
        assertThat(p.watched.phase).isEqualTo(Phase.HEAD);

        CompletableFuture<byte[]> next = p.readLater();
        assertThat(p.awaitReading()).isEqualTo(firstByte + 30 * S);
        advance(20 * S);
        p.send("Host: x\r\n");
        assertThat(text(next.get(5, TimeUnit.SECONDS))).isEqualTo("Host: x\r\n");
        assertThat(p.watched.readDeadline).as("not reading").isEqualTo(OpenConnections.NOT_READING);

        CompletableFuture<byte[]> rest = p.readLater();
        assertThat(p.awaitReading()).as("a header line does not start the bound again").isEqualTo(firstByte + 30 * S);
        advance(10 * S - 1);
        assertThat(open.size()).as("29.999… s after the first byte: still open").isOne();
        assertThat(rest).isNotDone();
        advance(1);
        assertThat(failure(rest)).isInstanceOf(ServerConnectionException.class);
        assertThat(p.clientSeesClose()).isTrue();
    }

    @Test
    void betweenRequestsAReadIsBoundedByTheIdleTimeout() throws Exception {
        Pair p = admitted();
        p.watched.phase = Phase.IDLE; // a request was answered: the connection waits for the next one
        CompletableFuture<byte[]> read = p.readLater();
        long started = nanos.get();
        // the first read of a connection drains what the selector read: nothing here, so it reads the socket
        assertThat(p.awaitReading()).isEqualTo(started + 60 * S);
        advance(60 * S);
        assertThat(failure(read)).isInstanceOf(ServerConnectionException.class);
    }

    @Test
    void thePeersCloseEndsTheReadWithNoBytes() throws Exception {
        Pair p = admitted();
        CompletableFuture<byte[]> read = p.readLater();
        p.awaitReading();
        p.client.close();
        assertThat(read.get(5, TimeUnit.SECONDS)).isNull();
        assertThat(p.watched.readDeadline).isEqualTo(OpenConnections.NOT_READING);
        assertThat(p.watched.phase).as("no bytes: no head began").isEqualTo(Phase.NEW);
    }

    @Test
    void aWatchedClientThatClosesIsToldOnceAndTheConnectionsNextReadIsTheEnd_CO3() throws Exception {
        Pair p = admitted();
        p.send("POST /v1/chat/completions HTTP/1.1\r\n");
        p.watched.get();
        p.watched.phase = Phase.BUSY; // the handler runs and waits (a queue, an upstream)
        AtomicInteger told = new AtomicInteger();
        p.watched.whenGone(told::incrementAndGet);
        assertThat(p.watched.connected()).isTrue();
        p.client.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !p.watched.connected());
        assertThat(told).hasValue(1);
        assertThat(p.watched.get()).as("the watcher's read is the connection's: the end").isNull();
    }

    @Test
    void bytesTheWatcherReadAreHandedToTheConnectionNotLost() throws Exception {
        Pair p = admitted();
        p.send("GET /a HTTP/1.1\r\n\r\n");
        p.watched.get();
        p.watched.phase = Phase.BUSY;
        AtomicInteger told = new AtomicInteger();
        p.watched.whenGone(told::incrementAndGet); // starts the watcher's read
        p.send("GET /b HTTP/1.1\r\n\r\n"); // a pipelined request arrives while the handler waits
        p.watched.phase = Phase.IDLE;
        assertThat(text(p.watched.get())).isEqualTo("GET /b HTTP/1.1\r\n\r\n");
        assertThat(p.watched.phase).as("the next head began").isEqualTo(Phase.HEAD);
        assertThat(p.watched.connected()).isTrue();
        assertThat(told).hasValue(0);
    }

    @Test
    void aWatcherReadTheConnectionTakesOverIsBoundedByItsPhase() throws Exception {
        Pair p = admitted();
        p.send("GET /a HTTP/1.1\r\n\r\n");
        p.watched.get();
        p.watched.whenGone(() -> { }); // a stream watched the client; it ended, the watcher still reads
        p.watched.phase = Phase.IDLE;
        CompletableFuture<byte[]> next = p.readLater();
        assertThat(p.awaitReading()).isEqualTo(nanos.get() + 60 * S);
        advance(60 * S);
        assertThat(failure(next)).isInstanceOf(ServerConnectionException.class);
        assertThat(p.clientSeesClose()).isTrue();
    }

    @Test
    void atTheCapTheOldestIdleConnectionsSocketIsClosedToMakeRoom() throws Exception {
        Pair idle = admitted();
        idle.watched.phase = Phase.IDLE;
        CompletableFuture<byte[]> idleRead = idle.readLater();
        idle.awaitReading();
        Pair busy = admitted();
        busy.watched.phase = Phase.BUSY;

        Pair fresh = new Pair();
        assertThat(open.admit(fresh.watched)).isTrue();
        assertThat(failure(idleRead)).as("the keep-alive connection's read ends").isInstanceOf(ServerConnectionException.class);
        assertThat(idle.clientSeesClose()).isTrue();
        assertThat(open.size()).isEqualTo(2);

        // now every other connection is inside a request or new and speaking: a busy one is never closed for room
        fresh.watched.phase = Phase.BUSY;
        Pair refused = new Pair();
        assertThat(open.admit(refused.watched)).isFalse();
        busy.send("GET /still-here HTTP/1.1\r\n");
        assertThat(text(busy.watched.get())).as("the busy connection still reads").isEqualTo("GET /still-here HTTP/1.1\r\n");
    }

    @Test
    void anHttp10RequestIsReadAsHttp11AndAnsweredAsHttp10() throws Exception {
        Pair p = admitted();
        p.send("GET /health HTTP/1.0\r\nAccept: */*\r\n\r\n");
        String host = p.server.localPeer().host() + ":" + p.server.localPeer().port();
        assertThat(text(p.watched.get())).isEqualTo("GET /health HTTP/1.1\r\nAccept: */*\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
        p.watched.dataWriter().write(BufferData.create("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(p.written.text()).isEqualTo("HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nhello");
    }

    @Test
    void anHttp10RequestLineSplitOverReadsIsGatheredBeforeItIsJudged() throws Exception {
        Pair p = admitted();
        CompletableFuture<byte[]> read = p.readLater();
        p.awaitReading();
        p.send("GET /health HT");
        // the second part once the first was read: the reader must read again before it knows the version
        await().atMost(Duration.ofSeconds(5)).until(() -> p.watched.phase == Phase.HEAD);
        p.send("TP/1.0\r\n\r\n");
        assertThat(text(read.get(5, TimeUnit.SECONDS))).startsWith("GET /health HTTP/1.1\r\n").endsWith("Connection: close\r\n\r\n");
    }

    @Test
    void aRequestLineNamingAnotherVersionIsAnswered505AndTheConnectionEnds() throws Exception {
        Pair p = admitted();
        p.send("GET / HTTP/2.0\r\n\r\n");
        assertThat(p.watched.get()).isNull();
        assertThat(p.written.text()).startsWith("HTTP/1.1 505 HTTP Version Not Supported\r\n")
                .contains("\"code\":\"http_version_not_supported\"");
    }

    @Test
    void afterAnAnswerThatAskedForTheCloseTheNextReadFlushesAndEnds() throws Exception {
        Pair p = admitted();
        p.send("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
        p.watched.get();
        p.watched.closeNext = true;
        p.send("GET /ignored HTTP/1.1\r\n\r\n");
        assertThat(p.watched.get()).isNull();
        assertThat(p.written.flushes).as("the answer still queued goes out before the close").hasValue(1);
    }
}
