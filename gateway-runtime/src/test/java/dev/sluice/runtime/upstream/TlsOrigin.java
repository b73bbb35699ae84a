package dev.sluice.runtime.upstream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * An HTTPS origin on 127.0.0.1 (ephemeral port) with a self-signed certificate made by
 * {@code keytool}: answers every request {@code 200 ok} and records its request line. {@link
 * #clientContext()} trusts the certificate.
 */
final class TlsOrigin implements AutoCloseable {

    private static final char[] PASSWORD = "changeit".toCharArray();

    private final SSLServerSocket server;
    private final SSLContext clientContext;
    private final Thread acceptor;
    private final List<String> requestLines = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();

    private TlsOrigin(SSLServerSocket server, SSLContext clientContext) {
        this.server = server;
        this.clientContext = clientContext;
        this.acceptor = Thread.ofVirtual().start(this::acceptLoop);
    }

    static TlsOrigin start(Path dir) throws Exception {
        Path store = dir.resolve("origin.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "origin", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                "-ext", "san=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD)).redirectErrorStream(true).start();
        String output = new String(keytool.getInputStream().readAllBytes(), ISO_8859_1);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0 || !Files.isRegularFile(store)) {
            throw new IllegalStateException("keytool failed: " + output);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, PASSWORD);
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, PASSWORD);
        SSLContext serverContext = SSLContext.getInstance("TLS");
        serverContext.init(kmf.getKeyManagers(), null, null);
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("origin", ks.getCertificate("origin"));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext clientContext = SSLContext.getInstance("TLS");
        clientContext.init(null, tmf.getTrustManagers(), null);
        SSLServerSocket server = (SSLServerSocket) serverContext.getServerSocketFactory().createServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
        return new TlsOrigin(server, clientContext);
    }

    int port() {
        return server.getLocalPort();
    }

    SSLContext clientContext() {
        return clientContext;
    }

    List<String> requestLines() {
        return List.copyOf(requestLines);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                sockets.add(s);
                threads.add(Thread.ofVirtual().start(() -> serve(s)));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            for (int b; !head.toString(ISO_8859_1).endsWith("\r\n\r\n") && (b = in.read()) >= 0; ) {
                head.write(b);
            }
            String text = head.toString(ISO_8859_1);
            requestLines.add(text.substring(0, Math.max(0, text.indexOf("\r\n"))));
            OutputStream out = s.getOutputStream();
            out.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                    .getBytes(ISO_8859_1));
            out.flush();
        } catch (IOException e) {
            // the client went away
        }
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
