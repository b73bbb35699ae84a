package dev.sluice.testkit;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A scriptable fake OpenAI-compatible upstream: a real HTTP/1.1 server on {@code 127.0.0.1}, one
 * virtual thread per connection, keep-alive. Every request, on any path and with any method, is
 * recorded and then answered with the next {@linkplain #enqueue enqueued} response, or with the
 * {@linkplain #setDefault default} ({@link MockResponse#echoCompletion()} initially) when the
 * script is empty. The exception is {@code GET …/models} (a gateway's model discovery): it is
 * answered with the {@linkplain #models model list} and recorded apart ({@link #modelsRequests()}),
 * so discovery never takes a scripted answer nor counts in {@link #requestCount()}.
 *
 * <pre>{@code
 * try (MockUpstream upstream = MockUpstream.start()) {
 *     upstream.enqueue(MockResponse.status(429, "{\"error\":{\"message\":\"slow down\"}}"));
 *     // ... point the gateway at upstream.baseUrl() ...
 *     RecordedRequest first = upstream.takeRequest(Duration.ofSeconds(5));
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} closes every socket and thread the server opened.
 */
public final class MockUpstream implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(MockUpstream.class.getName());
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

    private final ServerSocket serverSocket;
    private final Thread acceptor;
    private final Set<MockConnection> connections = ConcurrentHashMap.newKeySet();
    private final Queue<MockResponse> script = new ConcurrentLinkedQueue<>();
    private volatile MockResponse defaultResponse = MockResponse.echoCompletion();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger answering = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger peakAnswering = new java.util.concurrent.atomic.AtomicInteger();
    private final CountDownLatch closedLatch = new CountDownLatch(1);

    private final RecordedRequests log = new RecordedRequests();
    private volatile MockResponse modelsResponse = MockResponse.json(200, "{\"object\":\"list\",\"data\":[]}");
    private final Queue<RecordedRequest> modelsRequests = new ConcurrentLinkedQueue<>();
    /** Connections that carried a models request, kept to tell those that carried nothing else. */
    private final Queue<MockConnection> everConnected = new ConcurrentLinkedQueue<>();

    private MockUpstream(ServerSocket serverSocket) {
        this.serverSocket = serverSocket;
        this.acceptor = Thread.ofVirtual().name("mock-upstream-accept-" + port()).unstarted(this::acceptLoop);
    }

    /**
     * Starts a server on {@code 127.0.0.1} with an ephemeral port.
     *
     * @return the running server
     */
    public static MockUpstream start() {
        return start(0);
    }

    /**
     * Starts a server on {@code 127.0.0.1}.
     *
     * @param port the port, or 0 for an ephemeral one
     * @return the running server
     * @throws UncheckedIOException if the port cannot be bound
     */
    public static MockUpstream start(int port) {
        ServerSocket socket = null;
        try {
            socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), port), 1024);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("cannot bind mock upstream to 127.0.0.1:" + port, e);
        }
        MockUpstream upstream = new MockUpstream(socket);
        upstream.acceptor.start();
        return upstream;
    }

    /**
     * What {@code GET …/models} answers from now on: an OpenAI model list of these ids (none at
     * first).
     *
     * @param ids model ids
     * @return this
     */
    public MockUpstream models(String... ids) {
        StringBuilder b = new StringBuilder("{\"object\":\"list\",\"data\":[");
        for (int i = 0; i < ids.length; i++) {
            b.append(i == 0 ? "" : ",").append("{\"id\":\"").append(ids[i].replace("\\", "\\\\").replace("\"", "\\\""))
                    .append("\",\"object\":\"model\",\"created\":0,\"owned_by\":\"mock\"}");
        }
        return modelsResponse(MockResponse.json(200, b.append("]}").toString()));
    }

    /**
     * What {@code GET …/models} answers from now on, e.g. an error status.
     *
     * @param response the answer
     * @return this
     */
    public MockUpstream modelsResponse(MockResponse response) {
        modelsResponse = requireNonNull(response, "response is null");
        return this;
    }

    /**
     * The {@code GET …/models} requests received, oldest first.
     *
     * @return a copy
     */
    public List<RecordedRequest> modelsRequests() {
        return List.copyOf(modelsRequests);
    }

    /** Whether a request is a model list request: {@code GET} of a path ending in {@code /models}. */
    static boolean isModelsRequest(RecordedRequest request) {
        String path = request.path();
        int q = path.indexOf('?');
        return request.method().equals("GET") && (q < 0 ? path : path.substring(0, q)).endsWith("/models");
    }

    void modelsConnection(MockConnection connection) {
        if (everConnected.size() < RecordedRequests.MAX_RECORDED) {
            everConnected.add(connection);
        }
    }

    void recordModels(RecordedRequest request) {
        if (modelsRequests.size() < RecordedRequests.MAX_RECORDED) {
            modelsRequests.add(request);
        }
    }

    MockResponse modelsResponse() {
        return modelsResponse;
    }

    /**
     * The bound port.
     *
     * @return the port
     */
    public int port() {
        return serverSocket.getLocalPort();
    }

    /**
     * The base URL, without a trailing slash.
     *
     * @return {@code http://127.0.0.1:<port>}
     */
    public String baseUrl() {
        return "http://127.0.0.1:" + port();
    }

    /**
     * Appends a response to the script: the next request without a scripted answer gets it.
     *
     * @param response the response
     * @return this server
     */
    public MockUpstream enqueue(MockResponse response) {
        script.add(requireNonNull(response, "response is null"));
        return this;
    }

    /**
     * Sets the answer used while the script is empty.
     *
     * @param response the response
     * @return this server
     */
    public MockUpstream setDefault(MockResponse response) {
        defaultResponse = requireNonNull(response, "response is null");
        return this;
    }

    /**
     * The recorded requests in arrival order; only the last 10,000 are kept.
     *
     * @return an immutable snapshot
     */
    public List<RecordedRequest> requests() {
        return log.all();
    }

    /**
     * Waits for the next recorded request not yet taken (each request is taken at most once).
     *
     * @param timeout how long to wait at most
     * @return the request, or null if none arrived in time
     * @throws InterruptedException if interrupted while waiting
     */
    public RecordedRequest takeRequest(Duration timeout) throws InterruptedException {
        return log.take(timeout);
    }

    /**
     * Waits until the client closes (or resets) the connection that carried this request, before
     * sending another request on it: while the answer is still being written (a held or repeating
     * {@linkplain MockResponse#stream() stream}, a {@linkplain MockResponse#hang() hang}, a pause),
     * or while the connection is idle afterwards. The mock notices at once while it waits or holds,
     * and at the next write otherwise. A connection the mock closes itself ({@link #close()}, a
     * reset, {@code Connection: close}) does not count.
     *
     * <pre>{@code
     * upstream.enqueue(MockResponse.stream().event(SseEvents.openAiDelta("Hi")).thenHold());
     * // ... a client of the gateway reads "Hi", then disconnects ...
     * RecordedRequest request = upstream.takeRequest(Duration.ofSeconds(5));
     * assertThat(upstream.awaitClientGone(request, Duration.ofSeconds(1))).isTrue();
     * }</pre>
     *
     * @param request a request this upstream recorded and still keeps (see {@link #requests()})
     * @param timeout how long to wait at most; zero to just look
     * @return whether the client left within the timeout
     * @throws IllegalArgumentException if this upstream does not keep this request (compared by
     *     identity)
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitClientGone(RecordedRequest request, Duration timeout) throws InterruptedException {
        return log.awaitClientGone(request, timeout);
    }

    /**
     * The number of requests received since start or the last {@link #clear()}, including those
     * beyond the 10,000 kept.
     *
     * @return the count
     */
    public int requestCount() {
        return log.count();
    }

    /**
     * The number of TCP connections accepted since start (tells whether a client reuses keep-alive
     * connections), but for those that carried only {@code GET …/models} requests: a gateway's
     * model discovery, running beside the requests under test, must not change the count.
     *
     * @return the count
     */
    public int connectionCount() {
        return accepted.get() - modelsOnlyConnections();
    }

    /** Connections that carried a models request and nothing else (so far). */
    private int modelsOnlyConnections() {
        int n = 0;
        for (MockConnection c : everConnected) {
            if (c.modelsOnly()) {
                n++;
            }
        }
        return n;
    }

    /**
     * The most requests this upstream was answering at the same moment since start (or
     * {@link #clear()}): a request counts from when it was read until its answer (a stream: its
     * last byte) was written.
     *
     * @return the peak
     */
    public int maxConcurrentRequests() {
        return peakAnswering.get();
    }

    void answering(int delta) {
        int now = answering.addAndGet(delta);
        peakAnswering.accumulateAndGet(now, Math::max);
    }

    /** Empties the script and the recorded requests, and resets the default to {@link MockResponse#echoCompletion()}. */
    public void clear() {
        script.clear();
        defaultResponse = MockResponse.echoCompletion();
        log.clear();
        peakAnswering.set(answering.get());
    }

    /**
     * Stops accepting, closes every open connection (hanging and delayed answers included) and
     * returns once all server threads have ended. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closedLatch.countDown();
        closeQuietly(serverSocket);
        boolean interrupted = join(acceptor);
        // the acceptor has ended, so the set can no longer grow
        List<MockConnection> open = List.copyOf(connections);
        open.forEach(MockConnection::abort);
        for (MockConnection c : open) {
            interrupted |= join(c.thread);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptLoop() {
        while (!closed.get()) {
            Socket socket;
            try {
                socket = serverSocket.accept();
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.log(System.Logger.Level.DEBUG, "mock upstream accept failed: {0}", e.toString());
                    awaitClosed(Duration.ofMillis(10)); // don't spin on a persistent failure
                }
                continue;
            }
            try {
                socket.setTcpNoDelay(true);
            } catch (SocketException ignored) {
                // the client is already gone; the connection loop will notice
            }
            accepted.incrementAndGet();
            MockConnection connection = new MockConnection(this, socket);
            connection.thread = Thread.ofVirtual().name("mock-upstream-conn-" + port()).unstarted(connection);
            connections.add(connection);
            connection.thread.start();
        }
    }

    /** Records a request; returns the latch to count down when its client leaves. */
    CountDownLatch record(RecordedRequest request) {
        return log.record(request);
    }

    MockResponse nextResponse() {
        MockResponse scripted = script.poll();
        return scripted != null ? scripted : defaultResponse;
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Sleeps up to {@code d}, waking early on close; returns whether the server is closed. */
    boolean awaitClosed(Duration d) {
        try {
            return closedLatch.await(d.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /** Blocks until the server is closed. */
    void awaitClose() {
        try {
            closedLatch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void unregister(MockConnection connection) {
        connections.remove(connection);
    }

    /** Joins a thread for a bounded time; returns whether the caller was interrupted. */
    private static boolean join(Thread thread) {
        try {
            if (!thread.join(JOIN_TIMEOUT)) {
                LOG.log(System.Logger.Level.WARNING, "mock upstream thread {0} did not end within {1}", thread, JOIN_TIMEOUT);
            }
            return false;
        } catch (InterruptedException e) {
            return true;
        }
    }

    private static void closeQuietly(ServerSocket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing to do
            }
        }
    }
}
