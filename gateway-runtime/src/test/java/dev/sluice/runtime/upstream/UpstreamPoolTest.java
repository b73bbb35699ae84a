package dev.sluice.runtime.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link UpstreamPool}: last in first out, the idle bound, the per-origin bound (issue 26). */
class UpstreamPoolTest {

    private static final long IDLE = 3_000_000_000L;

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final UpstreamPool pool = new UpstreamPool(2, IDLE, nanos::get);
    private final List<UpstreamConnection> opened = new ArrayList<>();
    private ServerSocket server;
    private Origin origin;

    /** A connected socket: the kernel completes the handshake from the listen backlog, nobody accepts. */
    private UpstreamConnection connection() throws IOException {
        if (server == null) {
            server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
            origin = new Origin(false, "127.0.0.1", server.getLocalPort());
        }
        UpstreamConnection c = UpstreamConnection.open(origin, 2000, 2000, null);
        opened.add(c);
        return c;
    }

    @AfterEach
    void stop() throws IOException {
        pool.close();
        opened.forEach(UpstreamConnection::close);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theLastConnectionGivenBackServesFirstMarkedReused_I26() throws IOException {
        UpstreamConnection a = connection();
        UpstreamConnection b = connection();
        pool.give(a);
        pool.give(b);
        UpstreamConnection first = pool.take(origin);
        assertThat(first).isSameAs(b);
        assertThat(first.reused()).isTrue();
        assertThat(pool.take(origin)).isSameAs(a);
        assertThat(pool.take(origin)).isNull();
    }

    @Test
    void aConnectionIdleForTheBoundIsClosedWhenMetNotHandedOut_I26() throws IOException {
        UpstreamConnection a = connection();
        pool.give(a);
        nanos.addAndGet(IDLE);
        assertThat(pool.take(origin)).isNull();
        assertThat(pool.idleCount()).isZero();
        assertThatThrownBy(() -> a.read(new byte[1], 0, 1)).as("closed").isInstanceOf(java.net.SocketException.class);
    }

    @Test
    void givingOneBackClosesTheStaleOnesAtTheBottomAndKeepsTheRest_I26() throws IOException {
        UpstreamConnection old = connection();
        pool.give(old);
        nanos.addAndGet(IDLE);
        UpstreamConnection fresh = connection();
        pool.give(fresh);
        assertThat(pool.idleCount()).isEqualTo(1);
        assertThat(pool.take(origin)).isSameAs(fresh);
    }

    @Test
    void pastThePerOriginBoundAConnectionGivenBackIsClosed_I26() throws IOException {
        pool.give(connection());
        pool.give(connection());
        UpstreamConnection third = connection();
        pool.give(third);
        assertThat(pool.idleCount()).isEqualTo(2);
        assertThat(pool.take(origin)).isNotSameAs(third);
    }
}
