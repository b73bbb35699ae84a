package dev.sluice.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a {@link MockUpstream} as a standalone process, for benchmarks:
 * {@code java -cp sluice-testkit.jar dev.sluice.testkit.MockUpstreamMain --port 0}.
 * Prints one line {@code MockUpstream listening on http://127.0.0.1:PORT} and runs until killed.
 *
 * <p>By default every request is answered with the echo completion
 * ({@link MockResponse#echoCompletion()}). With {@code --stream-pieces N} (N &gt; 0) the default
 * answer is instead a chat completion stream ({@link MockResponse#chatStream}) of N content pieces,
 * {@code --stream-delay-ms D} milliseconds apart (default 20).
 */
public final class MockUpstreamMain {

    private static final String USAGE =
            "usage: MockUpstreamMain [--port N] [--stream-pieces N] [--stream-delay-ms D] [--models N]";

    private MockUpstreamMain() {
    }

    /**
     * Starts the server and blocks until the process is terminated.
     *
     * @param args {@code --port N} (default 0: ephemeral), {@code --stream-pieces N} (default 0:
     *     answer with the echo completion), {@code --stream-delay-ms D} (default 20), {@code --models N}
     *     (default 0: {@code GET …/models} lists {@code model-0} … {@code model-<N-1>})
     * @throws InterruptedException if the main thread is interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        int port = 0;
        int streamPieces = 0;
        long streamDelayMs = 20;
        int models = 0;
        try {
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String name = arg;
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    name = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                }
                if (!name.equals("--port") && !name.equals("--stream-pieces") && !name.equals("--stream-delay-ms") && !name.equals("--models")) {
                    usage();
                }
                if (value == null) {
                    if (i + 1 >= args.length) {
                        usage();
                    }
                    value = args[++i];
                }
                switch (name) {
                    case "--port" -> port = Integer.parseInt(value);
                    case "--stream-pieces" -> streamPieces = Integer.parseInt(value);
                    case "--models" -> models = Integer.parseInt(value);
                    default -> streamDelayMs = Long.parseLong(value);
                }
            }
        } catch (NumberFormatException e) {
            usage();
        }
        if (streamPieces < 0 || streamDelayMs < 0 || models < 0) {
            usage();
        }
        MockUpstream upstream = MockUpstream.start(port);
        if (streamPieces > 0) {
            List<String> pieces = new ArrayList<>(streamPieces);
            for (int i = 0; i < streamPieces; i++) {
                pieces.add("piece" + i + " ");
            }
            upstream.setDefault(MockResponse.chatStream(pieces, Duration.ofMillis(streamDelayMs)));
        }
        if (models > 0) {
            String[] ids = new String[models];
            for (int i = 0; i < models; i++) {
                ids[i] = "model-" + i;
            }
            upstream.models(ids);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(upstream::close, "mock-upstream-shutdown"));
        System.out.println("MockUpstream listening on " + upstream.baseUrl());
        System.out.flush();
        new CountDownLatch(1).await(); // server threads are virtual (daemon): keep the JVM alive
    }

    private static void usage() {
        System.err.println(USAGE);
        System.exit(2);
    }
}
