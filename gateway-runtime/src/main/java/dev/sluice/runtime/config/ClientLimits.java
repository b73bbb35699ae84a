package dev.sluice.runtime.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * Bounds on what client connections can make one instance hold (issue 29): how long a connection
 * may stay silent before its first byte, how long a request head may take to arrive, and how many
 * connections may be open at once. Connections that never speak otherwise hold a socket, a file
 * descriptor and ~10 KiB of heap each for ever.
 *
 * @param firstByteTimeout {@code server.firstByteTimeoutMs} / {@code SLUICE_FIRST_BYTE_TIMEOUT_MS}:
 *     a new connection that sent nothing for this long is closed without an answer; default 10 s
 * @param requestHeadTimeout {@code server.requestHeadTimeoutMs} / {@code SLUICE_REQUEST_HEAD_TIMEOUT_MS}:
 *     a request whose head (request line and headers) is not whole this long after its first byte
 *     is closed, however slowly its bytes trickle in; default 30 s
 * @param maxConnections {@code server.maxConnections} / {@code SLUICE_MAX_CONNECTIONS}: the most
 *     client connections open at once; default {@link #defaultMaxConnections(long, long)}
 * @param shutdownGrace {@code server.shutdownGraceMs} / {@code SLUICE_SHUTDOWN_GRACE_MS} (issue 37):
 *     on {@code SIGTERM} the instance stops accepting and gives the requests under way this long to
 *     finish; those still running then are ended; 0 ends them at once; default
 *     {@link #DEFAULT_SHUTDOWN_GRACE}
 */
public record ClientLimits(Duration firstByteTimeout, Duration requestHeadTimeout, int maxConnections, Duration shutdownGrace) {

    /** Default bound on the wait for a new connection's first byte. */
    public static final Duration DEFAULT_FIRST_BYTE_TIMEOUT = Duration.ofSeconds(10);
    /** Default bound on the arrival of a whole request head, from its first byte. */
    public static final Duration DEFAULT_REQUEST_HEAD_TIMEOUT = Duration.ofSeconds(30);
    /**
     * The heap one open connection is budgeted: measured ~10 KiB for a connection that never spoke
     * (Helidon's 8 KiB read buffer, socket, writer, virtual thread), rounded up to cover a keep-alive
     * connection between requests (docs/operator-guide.md §19).
     */
    public static final long HEAP_BYTES_PER_CONNECTION = 32 * 1024;
    /** The share of the heap open connections may take by default: a quarter. */
    public static final int HEAP_SHARE_DIVISOR = 4;
    /** The smallest default cap, whatever the heap or descriptor limit. */
    public static final int MIN_DEFAULT_MAX_CONNECTIONS = 64;
    /** The largest accepted cap. */
    public static final int MAX_MAX_CONNECTIONS = 1_000_000;
    /**
     * Default time the requests under way get to finish on {@code SIGTERM}: 5 s. {@code docker stop}
     * sends {@code SIGKILL} 10 s after {@code SIGTERM} (Kubernetes 30 s, systemd 90 s); 5 s leaves
     * the rest of the shutdown (giving back what the instance holds in Redis, the last log and usage
     * flush, bounded by 5 s) inside Docker's 10 s, so a stop under the defaults never ends in a kill.
     * It finishes short answers and most of a stream's tail; an operator whose orchestrator waits
     * longer can give long streams more.
     */
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(5);
    /** The longest accepted grace: 1 hour. */
    public static final Duration MAX_SHUTDOWN_GRACE = Duration.ofHours(1);

    /** Validates, naming the setting. */
    public ClientLimits {
        requireNonNull(firstByteTimeout, "firstByteTimeout is null");
        requireNonNull(requestHeadTimeout, "requestHeadTimeout is null");
        if (firstByteTimeout.isNegative() || firstByteTimeout.isZero()) {
            throw new IllegalArgumentException("server.firstByteTimeoutMs must be positive");
        }
        if (requestHeadTimeout.isNegative() || requestHeadTimeout.isZero()) {
            throw new IllegalArgumentException("server.requestHeadTimeoutMs must be positive");
        }
        if (maxConnections < 1 || maxConnections > MAX_MAX_CONNECTIONS) {
            throw new IllegalArgumentException("server.maxConnections must be 1–" + MAX_MAX_CONNECTIONS + ", got " + maxConnections);
        }
        requireNonNull(shutdownGrace, "shutdownGrace is null");
        if (shutdownGrace.isNegative() || shutdownGrace.compareTo(MAX_SHUTDOWN_GRACE) > 0) {
            throw new IllegalArgumentException("server.shutdownGraceMs must be 0–" + MAX_SHUTDOWN_GRACE.toMillis() + ", got "
                    + shutdownGrace.toMillis());
        }
    }

    /**
     * The bounds with the default shutdown grace.
     *
     * @param firstByteTimeout see the record
     * @param requestHeadTimeout see the record
     * @param maxConnections see the record
     */
    public ClientLimits(Duration firstByteTimeout, Duration requestHeadTimeout, int maxConnections) {
        this(firstByteTimeout, requestHeadTimeout, maxConnections, DEFAULT_SHUTDOWN_GRACE);
    }

    /**
     * These bounds with another shutdown grace.
     *
     * @param grace the time requests under way get on {@code SIGTERM}
     * @return the copy
     */
    public ClientLimits withShutdownGrace(Duration grace) {
        return new ClientLimits(firstByteTimeout, requestHeadTimeout, maxConnections, grace);
    }

    /**
     * The default cap: a quarter of the heap at {@value #HEAP_BYTES_PER_CONNECTION} bytes a
     * connection, and at most half the process's file descriptors (the rest are upstream
     * connections, the database and the JARs; running out of descriptors stops Helidon's accept
     * loop for good); never below {@value #MIN_DEFAULT_MAX_CONNECTIONS}. With {@code -Xmx192m}
     * and 20 000 descriptors: 1 536.
     *
     * @param maxHeapBytes {@code Runtime.maxMemory()}
     * @param maxFileDescriptors the process's descriptor limit, or 0 when unknown
     * @return the cap
     */
    public static int defaultMaxConnections(long maxHeapBytes, long maxFileDescriptors) {
        long byHeap = maxHeapBytes / HEAP_SHARE_DIVISOR / HEAP_BYTES_PER_CONNECTION;
        long byFds = maxFileDescriptors > 0 ? maxFileDescriptors / 2 : Long.MAX_VALUE;
        return (int) Math.max(MIN_DEFAULT_MAX_CONNECTIONS, Math.min(MAX_MAX_CONNECTIONS, Math.min(byHeap, byFds)));
    }

    /**
     * The defaults for this process: {@link #defaultMaxConnections} of its heap and descriptor limit.
     *
     * @return the defaults
     */
    public static ClientLimits defaults() {
        return new ClientLimits(DEFAULT_FIRST_BYTE_TIMEOUT, DEFAULT_REQUEST_HEAD_TIMEOUT,
                defaultMaxConnections(Runtime.getRuntime().maxMemory(), maxFileDescriptors()));
    }

    /** The process's open-file limit, or 0 when the platform does not say. */
    static long maxFileDescriptors() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            return os.getMaxFileDescriptorCount();
        }
        return 0;
    }
}
