package dev.sluice.distribution;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on loopback in front of one server (issue 37: one instance partitioned from
 * Redis while the others still reach it). Forwarding: bytes pass both ways. {@link #partition()}:
 * connections stay open and new ones are accepted, but nothing is forwarded — the peer sees a
 * socket that never answers, as behind a network partition (what it sent waits, as TCP would
 * retransmit it, and arrives after {@link #heal()}). Every socket and thread ends with
 * {@link #close()}.
 */
final class TcpPartition implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private volatile boolean partitioned;
    private volatile boolean closed;

    private TcpPartition(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("tcp-partition-accept").start(this::accept);
    }

    /**
     * Starts forwarding a free loopback port to {@code targetPort} on loopback.
     *
     * @param targetPort the server's port
     * @return the forwarder
     */
    static TcpPartition forward(int targetPort) {
        try {
            return new TcpPartition(targetPort);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the port clients connect to instead of the server's */
    int port() {
        return listener.getLocalPort();
    }

    /** Stops forwarding (sockets stay open, nothing passes). */
    void partition() {
        partitioned = true;
    }

    /** Forwards again, what was held first. */
    void heal() {
        synchronized (gate) {
            partitioned = false;
            gate.notifyAll();
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
                sockets.add(client);
                sockets.add(server);
                Thread.ofPlatform().daemon().name("tcp-partition-up").start(() -> pump(client, server));
                Thread.ofPlatform().daemon().name("tcp-partition-down").start(() -> pump(server, client));
            } catch (IOException e) {
                // closed, or the server refused: the client sees its connection end
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            while (true) {
                awaitForwarding();
                int n = in.read(buffer);
                if (n < 0) {
                    break;
                }
                awaitForwarding(); // bytes read just before the partition wait for it to heal
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // one side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitForwarding() throws InterruptedException, IOException {
        synchronized (gate) {
            while (partitioned && !closed) {
                gate.wait(100);
            }
        }
        if (closed) {
            throw new IOException("closed");
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        heal();
        try {
            listener.close();
        } catch (IOException e) {
            // already closed
        }
        sockets.forEach(TcpPartition::closeQuietly);
    }
}
