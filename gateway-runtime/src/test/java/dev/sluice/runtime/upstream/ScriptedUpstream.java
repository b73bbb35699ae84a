package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP/1.1 server on an ephemeral port whose every connection runs a script: the tests
 * of {@link SocketUpstreamHttp} decide byte by byte what the upstream writes, when it closes, and
 * how many connections it accepted.
 */
final class ScriptedUpstream implements AutoCloseable {

    /** What one connection does; {@code index} counts the connections from 0. */
    interface Script {
        void run(Conn conn, int index) throws IOException;
    }

    /** One accepted connection. */
    static final class Conn {
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        private final List<String> requests;

        Conn(Socket socket, List<String> requests) throws IOException {
            this.socket = socket;
            this.requests = requests;
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
        }

        /** Reads a request head and its Content-Length body; null when the client closed first. */
        String request() throws IOException {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            while (!head.toString(ISO_8859_1).endsWith("\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                head.write(b);
            }
            String text = head.toString(ISO_8859_1);
            int length = 0;
            for (String line : text.split("\r\n")) {
                if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).strip());
                }
            }
            String request = text + new String(in.readNBytes(length), ISO_8859_1);
            requests.add(request);
            return request;
        }

        void write(String s) throws IOException {
            out.write(s.getBytes(ISO_8859_1));
            out.flush();
        }
    }

    private final ServerSocket server;
    private final Script script;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    private ScriptedUpstream(Script script) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.script = script;
        this.acceptor = Thread.ofVirtual().start(this::accept);
    }

    static ScriptedUpstream start(Script script) throws IOException {
        return new ScriptedUpstream(script);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                sockets.add(s);
                int index = accepted.getAndIncrement();
                Thread.ofVirtual().start(() -> {
                    try {
                        script.run(new Conn(s, requests), index);
                    } catch (IOException e) {
                        // the client went away
                    }
                });
            } catch (IOException e) {
                return;
            }
        }
    }

    /** @return the requests the scripts read, in order */
    List<String> requests() {
        return requests;
    }

    int accepted() {
        return accepted.get();
    }

    int port() {
        return server.getLocalPort();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    /** Stops accepting: a further connect is refused. */
    void stopAccepting() throws IOException {
        server.close();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
        try {
            acceptor.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
