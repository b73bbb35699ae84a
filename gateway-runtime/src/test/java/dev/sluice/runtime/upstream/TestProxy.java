package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A minimal HTTP proxy on 127.0.0.1 (ephemeral port) for tests: {@code CONNECT host:port} opens a
 * tunnel; an absolute-form request ({@code GET http://host:port/path}) is forwarded in origin form
 * without its {@code Proxy-*} headers. Every request head it receives is recorded. Closing it
 * closes every socket and joins every thread.
 */
final class TestProxy implements AutoCloseable {

    /** A request head as the proxy received it. */
    record Seen(String requestLine, Map<String, String> headers, String clientAddress) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final ServerSocket server;
    private final Thread acceptor;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    private TestProxy(ServerSocket server) {
        this.server = server;
        this.acceptor = Thread.ofVirtual().start(this::acceptLoop);
    }

    static TestProxy start() throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        return new TestProxy(s);
    }

    int port() {
        return server.getLocalPort();
    }

    List<Seen> seen() {
        return List.copyOf(seen);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                sockets.add(client);
                threads.add(Thread.ofVirtual().start(() -> serve(client)));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket client) {
        try (client) {
            InputStream in = client.getInputStream();
            OutputStream out = client.getOutputStream();
            List<String> lines = readHead(in);
            if (lines.isEmpty()) {
                return;
            }
            Map<String, String> headers = new LinkedHashMap<>();
            for (String line : lines.subList(1, lines.size())) {
                int colon = line.indexOf(':');
                headers.putIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
            String requestLine = lines.get(0);
            seen.add(new Seen(requestLine, headers, client.getInetAddress().getHostAddress()));
            String[] parts = requestLine.split(" ");
            try (Socket target = new Socket()) {
                sockets.add(target);
                if (parts[0].equals("CONNECT")) {
                    URI authority = URI.create("//" + parts[1]);
                    target.connect(new InetSocketAddress(authority.getHost(), authority.getPort()));
                    out.write("HTTP/1.1 200 Connection established\r\n\r\n".getBytes(ISO_8859_1));
                    out.flush();
                } else {
                    URI uri = URI.create(parts[1]);
                    target.connect(new InetSocketAddress(uri.getHost(), uri.getPort()));
                    StringBuilder head = new StringBuilder(parts[0]).append(' ').append(uri.getRawPath())
                            .append(uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()).append(' ').append(parts[2]).append("\r\n");
                    for (String line : lines.subList(1, lines.size())) {
                        if (!line.toLowerCase(Locale.ROOT).startsWith("proxy-")) {
                            head.append(line).append("\r\n");
                        }
                    }
                    target.getOutputStream().write(head.append("\r\n").toString().getBytes(ISO_8859_1));
                }
                Thread up = Thread.ofVirtual().start(() -> pipe(in, target));
                threads.add(up);
                pipe(target.getInputStream(), client);
            }
        } catch (IOException e) {
            // a side closed: the tunnel ends
        }
    }

    private static void pipe(InputStream from, Socket to) {
        try {
            from.transferTo(to.getOutputStream());
            to.shutdownOutput();
        } catch (IOException e) {
            // a side closed
        }
    }

    private static List<String> readHead(InputStream in) throws IOException {
        List<String> lines = new ArrayList<>();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = in.read()) >= 0; ) {
            if (b == '\n') {
                String s = line.toString(ISO_8859_1);
                s = s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
                if (s.isEmpty()) {
                    return lines;
                }
                lines.add(s);
                line.reset();
            } else {
                line.write(b);
            }
        }
        return List.of();
    }

    @Override
    public void close() throws IOException {
        server.close();
        join(acceptor);
        for (Socket s : sockets) {
            s.close();
        }
        for (Thread t : threads) {
            join(t);
        }
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
