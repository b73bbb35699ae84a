package dev.sluice.runtime.it;

import static dev.sluice.runtime.it.SluiceHarness.ADMIN_KEY;
import static dev.sluice.runtime.it.SluiceHarness.chatBody;
import static dev.sluice.runtime.it.SluiceHarness.read;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.SseEvents;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 500 slow streams held open at once through a real server and a mock upstream on loopback (SPEC
 * §19 NF-2 "heap and leaks", issue 13): every stream completes, the heap stays bounded while all
 * are open, and nothing per stream outlives its stream (platform threads, file descriptors,
 * admissions).
 *
 * <p>Sluice runs in this JVM, so heap, threads and descriptors are this JVM's: Sluice's, the
 * mock's and the clients' together. Baselines are taken after those are started, the clients are
 * closed before the leak checks, and what the mock and the clients hold is counted in the bounds
 * below (each says why).
 */
class StreamLoadIT {

    static final int STREAMS = 500;
    /**
     * Each stream: a role chunk, {@value #DELTAS} content chunks of {@value #DELTA_CHARS}
     * characters 200 ms apart (3.2 s), a plateau of {@link #PLATEAU} with nothing sent, then the
     * finish chunk and {@code [DONE]}. The heap is measured on the plateau: by then every stream has
     * carried all its content (128 KiB, 64 MiB for the 500), yet none has ended. The plateau must
     * outlast how far the first stream is ahead of the last (~1–2 s on 2 shared cores, more on a
     * cold JVM) plus the measurement; {@code endedAtPeak} fails the test if it did not.
     */
    static final int DELTAS = 16;
    static final int DELTA_CHARS = 8 * 1024;
    static final Duration DELTA_EVERY = Duration.ofMillis(200);
    static final Duration PLATEAU = Duration.ofSeconds(4);
    static final String CONTENT_MARK = "\"content\":\"xxxxxxxx";

    /**
     * The cap on heap growth (live heap after full GCs, on the plateau minus before the wave) for the
     * 500 open streams, all of this JVM: Sluice, the clients and the mock.
     *
     * <p>What legitimately grows per open stream: in Sluice, one virtual thread each for the request,
     * the client's liveness watcher and the pump (their stacks are heap objects while parked), a
     * pump queue of at most 16 chunks (empty here: the clients keep up), the SSE reader's 8 K-char
     * buffer plus its 8 KiB decoder buffer, Helidon's server and client connection buffers; in the
     * client, java.net.http's connection and an 8 K-char reader; in the mock, its connection's
     * virtual thread (its 32 KiB of buffers are already in the baseline, on the upstream keep-alive
     * connections the warm-up wave left). Measured on these machines: 87–100 MiB for the 500
     * (≈ 180 KiB a stream, all three parties); the same with 32 content chunks instead of 16, and
     * 70 MiB with 1 KiB chunks: it is per-stream buffers and stacks, not stream content.
     *
     * <p>Why 128 MiB means something: by the plateau the 500 streams carried 64 MiB of content. A
     * Sluice that kept each whole stream (for logging, usage, a retry) would add at least those
     * 64 MiB to the 87–100 MiB above and cross the cap; so would per-stream buffers doubling. It
     * leaves ~30 MiB of headroom for GC and scheduling noise.
     */
    static final long HEAP_GROWTH_CAP = 128L * 1024 * 1024;

    /**
     * Platform threads that may differ from the baseline without a leak: the JDK's virtual-thread
     * carriers (ForkJoinPool workers, parked ones linger), the harness's HttpClient workers
     * (a cached pool), timers. A leak per stream would show as hundreds.
     */
    static final int THREAD_SLACK = 8;
    /** Descriptors that may differ without a leak (the SQLite journal, a JDK pipe); a leak per stream shows as hundreds. */
    static final int FD_SLACK = 16;

    @TempDir
    Path dir;
    SluiceHarness sluice;
    MockUpstream upstream;
    String clientKey;
    String connectionId;

    @BeforeEach
    void start() {
        sluice = new SluiceHarness(dir);
        upstream = MockUpstream.start();
        clientKey = sluice.addKey("{\"name\":\"load\"}");
        // no maxConcurrent: nothing in Sluice queues the 500
        connectionId = sluice.addConnection("{\"provider\":\"alpha\",\"authType\":\"apikey\",\"apiKey\":\"sk-upstream-alpha-abcdef\","
                + "\"baseUrl\":\"" + upstream.baseUrl() + "/v1\"}");
    }

    @AfterEach
    void stop() {
        sluice.close();
        upstream.close();
    }

    static MockResponse slowStream() {
        return MockResponse.stream().event(SseEvents.openAiRole())
                .repeat(DELTAS, DELTA_EVERY, SseEvents.openAiDelta("x".repeat(DELTA_CHARS)))
                .pause(PLATEAU).event(SseEvents.openAiFinish("stop")).event(SseEvents.DONE).thenEnd();
    }

    /** What one wave of {@link #STREAMS} streams measured. */
    record Wave(long heapBefore, long heapPeak, int threadsPeak, long fdsPeak, long allOpenMs,
            long wallMs, int endedAtPeak, List<String> failures) {
        long heapGrowth() {
            return heapPeak - heapBefore;
        }
    }

    @Test
    void fiveHundredSlowStreamsAtOnceKeepTheHeapBoundedAndLeaveNoThreadOrDescriptorBehind_NF2() throws Exception {
        long t0 = System.nanoTime();
        int threads0 = platformThreads();
        long fds0 = openFds();

        // The first wave warms the JIT and fills Sluice's upstream keep-alive pool (and the mock's
        // connections behind it); its heap figure mixes in those one-time costs, so the cap holds
        // the second wave.
        Wave warmUp = wave();
        assertAllCompleted(warmUp);
        nothingLeftBehind(threads0, fds0, 1);

        Wave measured = wave();
        assertAllCompleted(measured);
        assertThat(measured.heapGrowth()).as("heap growth with %d streams open (MiB: %s)", STREAMS, mib(measured.heapGrowth()))
                .isLessThan(HEAP_GROWTH_CAP);
        nothingLeftBehind(threads0, fds0, 2);

        // one line for docs/performance.md
        System.out.printf("StreamLoadIT: %d streams; heap growth at peak %s MiB (warm-up wave %s MiB); platform threads %d before, "
                        + "%d at peak, %d after; fds %d before, %d at peak, %d after; all open after %d ms; waves %d / %d ms; test %d ms%n",
                STREAMS, mib(measured.heapGrowth()), mib(warmUp.heapGrowth()), threads0, measured.threadsPeak(), platformThreads(), fds0,
                measured.fdsPeak(), openFds(), measured.allOpenMs(), warmUp.wallMs(), measured.wallMs(), (System.nanoTime() - t0) / 1_000_000);
    }

    private void assertAllCompleted(Wave w) {
        assertThat(w.failures()).as("streams that did not complete with 200 and [DONE]").isEmpty();
        assertThat(w.endedAtPeak()).as("streams that had ended when the peak was measured: the 500 were not all open at once").isZero();
        assertThat(upstream.maxConcurrentRequests()).as("upstream streams open at once").isEqualTo(STREAMS);
        assertThat(upstream.requestCount()).as("upstream requests (no retries)").isEqualTo(STREAMS);
    }

    /**
     * After the clients have closed: platform threads back to the baseline, descriptors back to the
     * baseline plus the upstream keep-alive pool, every stream counted as completed and every
     * admission finalized.
     *
     * <p>The upstream client keeps idle upstream connections (up to
     * {@code SocketUpstreamHttp.CONNECTION_CACHE_SIZE}; a stale one is closed only when met); each is two descriptors here, Sluice's end
     * and the mock's. The pool holds at most one per stream that was open at once, so the bound is
     * {@code 2 × 500}. It stays that after the second wave: a wave whose upstream connections were
     * neither reused nor closed would add another 1000.
     */
    private void nothingLeftBehind(int threads0, long fds0, int waves) {
        long fdBound = fds0 + 2L * STREAMS + FD_SLACK;
        Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            assertThat(platformThreads()).as("live platform threads (baseline %d)", threads0).isLessThanOrEqualTo(threads0 + THREAD_SLACK);
            assertThat(openFds()).as("open fds (baseline %d, + the upstream keep-alive pool)", fds0).isLessThanOrEqualTo(fdBound);
            JsonNode streams = read(sluice.send("GET", "/api/monitoring/health", ADMIN_KEY, null).body()).get("streams");
            assertThat(streams.get("completed").asInt()).as("streams completed (%s)", streams).isEqualTo(STREAMS * waves);
            JsonNode limits = read(sluice.send("GET", "/api/rate-limits", ADMIN_KEY, null).body()).get("data").get(0);
            assertThat(limits.get("running").asInt()).as("admissions still running").isZero();
            assertThat(limits.get("queued").asInt()).as("admissions still queued").isZero();
        });
    }

    /** Opens {@link #STREAMS} streams at once, measures on the plateau, reads them all to their end, closes the client. */
    private Wave wave() throws Exception {
        upstream.clear(); // resets the peak and the request count; also the default, so set it again
        upstream.setDefault(slowStream());
        long heapBefore = settledHeapUsed();
        CountDownLatch allContent = new CountDownLatch(STREAMS);
        AtomicInteger ended = new AtomicInteger();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        long t0 = System.nanoTime();
        long heapPeak;
        int threadsPeak;
        long fdsPeak;
        long allOpenMs;
        int endedAtPeak;
        // clients on virtual threads, and so is the HttpClient's own work: no platform thread per stream
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(clients)
                        .connectTimeout(Duration.ofSeconds(10)).build()) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(sluice.base() + "/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + clientKey).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(chatBody("alpha/m", true))).build();
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < STREAMS; i++) {
                running.add(clients.submit(() -> readStream(http, request, allContent, ended, failures)));
            }
            assertThat(allContent.await(60, TimeUnit.SECONDS)).as("every stream reached its plateau").isTrue();
            allOpenMs = (System.nanoTime() - t0) / 1_000_000;
            heapPeak = settledHeapUsed();
            threadsPeak = platformThreads();
            fdsPeak = openFds();
            endedAtPeak = ended.get(); // read after measuring: the measurement happened while all were open
            for (Future<?> r : running) {
                r.get(60, TimeUnit.SECONDS);
            }
        }
        long wallMs = (System.nanoTime() - t0) / 1_000_000;
        return new Wave(heapBefore, heapPeak, threadsPeak, fdsPeak, allOpenMs, wallMs, endedAtPeak,
                List.copyOf(failures));
    }

    /** Reads one stream to its end; counts down {@code allContent} at its last content chunk (or when it fails). */
    private static void readStream(HttpClient http, HttpRequest request, CountDownLatch allContent, AtomicInteger ended, Queue<String> failures) {
        boolean counted = false;
        try {
            HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
            int contents = 0;
            String last = null;
            try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.isEmpty()) {
                        continue;
                    }
                    if (line.contains(CONTENT_MARK) && ++contents == DELTAS) {
                        allContent.countDown();
                        counted = true;
                    }
                    last = line;
                }
            }
            ended.incrementAndGet();
            if (r.statusCode() != 200 || contents != DELTAS || !"data: [DONE]".equals(last)) {
                failures.add(r.statusCode() + ", " + contents + " content chunks, last line: "
                        + (last == null ? null : last.substring(0, Math.min(200, last.length()))));
            }
        } catch (IOException | RuntimeException e) {
            failures.add(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(e.toString());
        } finally {
            if (!counted) {
                allContent.countDown(); // don't make the wave wait for a stream that failed
            }
        }
    }

    /**
     * Live heap: used heap right after a full GC ({@code System.gc()} is a full, stop-the-world
     * collection with G1), the least of three so that allocation between the GC and the reading
     * does not count. {@code Runtime}'s total − free is the figure {@code MemoryMXBean} reports as
     * heap used, without opening {@code java.management} to the test module.
     */
    static long settledHeapUsed() {
        Runtime rt = Runtime.getRuntime();
        long min = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            min = Math.min(min, rt.totalMemory() - rt.freeMemory());
        }
        return min;
    }

    /** Live platform threads ({@code getAllStackTraces} leaves virtual threads out, as {@code ThreadMXBean} does). */
    static int platformThreads() {
        return Thread.getAllStackTraces().size();
    }

    static long openFds() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
