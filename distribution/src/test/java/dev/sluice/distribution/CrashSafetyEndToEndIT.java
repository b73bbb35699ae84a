package dev.sluice.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import java.io.File;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety (issue 19): {@code kill -9} during bursts of admin writes (connections, keys,
 * combos, settings), exclusive leases taken and released, and traffic; after the restart every
 * acknowledged write is there (the last acknowledged lease still active, a released one not
 * back), the database passes {@code bin/sluice doctor} ({@code PRAGMA integrity_check}), and
 * nothing runs or waits.
 */
class CrashSafetyEndToEndIT {

    @TempDir
    static Path unpacked;
    private static Path home;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    private final String adminKey = "sk-admin-" + UUID.randomUUID();
    private MockUpstream upstream;

    @BeforeAll
    static void unpack() {
        home = Distribution.unpack(unpacked);
    }

    @BeforeEach
    void start() {
        upstream = MockUpstream.start().setDefault(MockResponse.echoCompletion());
    }

    @AfterEach
    void stop() {
        upstream.close();
    }

    @Test
    void killMinus9DuringWritesAndTrafficLosesNoAcknowledgedWrite() throws Exception {
        Path data = work.resolve("data");
        SluiceProcess first = servers.start(home, SluiceProcess.env(data, adminKey));
        SluiceClient c = new SluiceClient(first);
        String base = c.createConnection(adminKey, "alpha", "sk-base-0123456789", upstream.baseUrl() + "/v1");
        String clientKey = c.createKey(adminKey, "traffic");
        String leaseKey = c.expect(c.post("/api/keys", adminKey, Map.of("name", "leases", "scopes", List.of("lease:exclusive"),
                "allowedConnections", List.of(base))), 201).get("key").asText();
        // the last acknowledged lease operation: {owner, generation, "acquired" | "released"}
        java.util.concurrent.atomic.AtomicReference<String[]> lastLease = new java.util.concurrent.atomic.AtomicReference<>();
        Set<String> connections = ConcurrentHashMap.newKeySet();
        Set<String> keys = ConcurrentHashMap.newKeySet();
        Set<String> combos = ConcurrentHashMap.newKeySet();
        Map<String, String> lastAlias = new ConcurrentHashMap<>();
        AtomicInteger acknowledged = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(7);
        for (int t = 0; t < 7; t++) {
            int kind = t;
            pool.submit(() -> {
                for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                    try {
                        switch (kind) {
                            case 0 -> {
                                HttpResponse<String> r = c.post("/api/providers", adminKey, Map.of("provider", "alpha", "apiKey",
                                        "sk-crash-" + i + "-0123456789", "baseUrl", upstream.baseUrl() + "/v1", "priority", 5));
                                if (r.statusCode() == 201) {
                                    connections.add(SluiceClient.JSON.readTree(r.body()).get("id").asText());
                                }
                            }
                            case 1 -> {
                                HttpResponse<String> r = c.post("/api/keys", adminKey, Map.of("name", "crash-" + i));
                                if (r.statusCode() == 201) {
                                    keys.add(SluiceClient.JSON.readTree(r.body()).get("id").asText());
                                }
                            }
                            case 2 -> {
                                String name = "combo-" + i;
                                HttpResponse<String> r = c.post("/api/combos", adminKey, Map.of("name", name, "strategy", "priority",
                                        "targets", List.of(Map.of("model", "alpha/m"))));
                                if (r.statusCode() == 201) {
                                    combos.add(name);
                                }
                            }
                            case 3 -> {
                                String target = "alpha/m" + i;
                                HttpResponse<String> r = c.patch("/api/settings", adminKey, Map.of("modelAliases", Map.of("crash", target)));
                                if (r.statusCode() == 200) {
                                    lastAlias.put("crash", target);
                                }
                            }
                            case 6 -> {
                                String owner = "vlo_" + java.util.Base64.getUrlEncoder().withoutPadding()
                                        .encodeToString(java.nio.ByteBuffer.allocate(32).putInt(i).putLong(System.nanoTime()).array());
                                HttpResponse<String> r = c.lease(leaseKey, owner, Map.of("action", "acquire", "model", "alpha/m",
                                        "ttlMs", 1_800_000));
                                if (r.statusCode() == 200) {
                                    String generation = SluiceClient.JSON.readTree(r.body()).get("generation").asText();
                                    lastLease.set(new String[] {owner, generation, "acquired"});
                                    if (i % 2 == 0 && c.lease(leaseKey, owner, Map.of("action", "release",
                                            "generation", Long.parseLong(generation))).statusCode() == 200) {
                                        lastLease.set(new String[] {owner, generation, "released"});
                                    }
                                }
                            }
                            default -> c.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", kind == 4));
                        }
                        acknowledged.incrementAndGet();
                    } catch (AssertionError | RuntimeException e) {
                        return null;  // the server is gone
                    }
                }
                return null;
            });
        }
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.get() >= 150);
        first.kill();
        pool.shutdownNow();
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

        ProcessBuilder doctor = new ProcessBuilder(home.resolve("bin/sluice").toString(), "doctor").redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        doctor.environment().keySet().removeIf(k -> k.startsWith("SLUICE_"));
        doctor.environment().put("JAVA_HOME", System.getProperty("java.home"));
        doctor.environment().put("SLUICE_DATA_DIR", data.toString());
        Path out = Files.createTempFile(work, "doctor", ".txt");
        Process p = doctor.redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String report = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(report).as(report).containsPattern("(?m)^ok +database: ");
        assertThat(p.exitValue()).as(report).isZero();

        SluiceClient second = new SluiceClient(servers.start(home, SluiceProcess.env(data, adminKey)));
        assertThat(SluiceClient.listed(second.expect(second.get("/api/providers", adminKey), 200), "id")).contains(base)
                .containsAll(connections);
        assertThat(SluiceClient.listed(second.expect(second.get("/api/keys", adminKey), 200), "id")).containsAll(keys);
        assertThat(SluiceClient.listed(second.expect(second.get("/api/combos", adminKey), 200), "name")).containsAll(combos);
        JsonNode settings = second.expect(second.get("/api/settings", adminKey), 200);
        if (lastAlias.containsKey("crash")) {
            // the last acknowledged alias, or one written after it whose answer the kill swallowed
            assertThat(settings.at("/modelAliases/crash").asText()).startsWith("alpha/m");
            int acked = Integer.parseInt(lastAlias.get("crash").substring(7));
            int stored = Integer.parseInt(settings.at("/modelAliases/crash").asText().substring(7));
            assertThat(stored).isGreaterThanOrEqualTo(acked);
        }
        String[] lease = lastLease.get();
        assertThat(lease).as("a lease was acknowledged before the kill").isNotNull();
        HttpResponse<String> renewed = second.lease(leaseKey, lease[0], Map.of("action", "renew", "generation", Long.parseLong(lease[1])));
        if (lease[2].equals("acquired")) {
            assertThat(renewed.statusCode()).as("the acknowledged lease survived: " + renewed.body()).isEqualTo(200);
            assertThat(SluiceClient.JSON.readTree(renewed.body()).get("state").asText()).isEqualTo("ACTIVE");
        } else {
            assertThat(renewed.statusCode()).as("a released lease does not come back: " + renewed.body()).isEqualTo(409);
        }
        for (JsonNode row : second.expect(second.get("/api/rate-limits", adminKey), 200).get("data")) {
            assertThat(row.get("running").asInt() + row.get("queued").asInt()).isZero();
        }
        assertThat(second.expect(second.post("/v1/chat/completions", clientKey, SluiceClient.chat("alpha/m", false)), 200)).isNotNull();
        System.out.printf("crash safety: %d acknowledged operations before kill -9 (%d connections, %d keys, %d combos); all present%n",
                acknowledged.get(), connections.size(), keys.size(), combos.size());
    }
}
