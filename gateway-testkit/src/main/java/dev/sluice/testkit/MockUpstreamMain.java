package dev.sluice.testkit;

import java.util.concurrent.CountDownLatch;

/**
 * Runs a {@link MockUpstream} with its default echo completion as a standalone process, for
 * benchmarks: {@code java -cp sluice-testkit.jar dev.sluice.testkit.MockUpstreamMain --port 0}.
 * Prints one line {@code MockUpstream listening on http://127.0.0.1:PORT} and runs until killed.
 */
public final class MockUpstreamMain {

    private MockUpstreamMain() {
    }

    /**
     * Starts the server and blocks until the process is terminated.
     *
     * @param args {@code --port N} (default 0: ephemeral)
     * @throws InterruptedException if the main thread is interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        int port = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else if (args[i].startsWith("--port=")) {
                port = Integer.parseInt(args[i].substring("--port=".length()));
            } else {
                System.err.println("usage: MockUpstreamMain [--port N]");
                System.exit(2);
            }
        }
        MockUpstream upstream = MockUpstream.start(port);
        Runtime.getRuntime().addShutdownHook(new Thread(upstream::close, "mock-upstream-shutdown"));
        System.out.println("MockUpstream listening on " + upstream.baseUrl());
        System.out.flush();
        new CountDownLatch(1).await(); // server threads are virtual (daemon): keep the JVM alive
    }
}
