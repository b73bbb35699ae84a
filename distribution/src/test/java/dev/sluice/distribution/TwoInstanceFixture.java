package dev.sluice.distribution;

import dev.sluice.testkit.MockResponse;
import dev.sluice.testkit.MockUpstream;
import dev.sluice.testkit.TestPostgres;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the two-instance end-to-end tests (NF-6) stand on: the built zip unpacked once, one
 * PostgreSQL server per test class with a fresh database per test (its credentials in the URL, the
 * way an operator may paste it), three mock upstreams answering {@code from-0} … {@code from-2}, one
 * admin key and one {@code SLUICE_SECRET_KEY} for all instances, and the instances themselves
 * started A first (it migrates), then B (and C …: {@link #instances}), each with a data folder of its own. Skipped without
 * PostgreSQL binaries (failed with {@code SLUICE_REQUIRE_POSTGRES=1}); every process started here is
 * stopped after its test.
 */
abstract class TwoInstanceFixture {

    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @TempDir
    static Path unpacked;
    static Path home;
    static TestPostgres postgres;
    private static int databases;

    @TempDir
    Path work;

    @RegisterExtension
    final SluiceServers servers = new SluiceServers();

    final String adminKey = "sk-admin-" + UUID.randomUUID();
    final String secretKey = Base64.getEncoder().encodeToString(UUID.randomUUID().toString().substring(0, 32).getBytes());
    final List<MockUpstream> mocks = new ArrayList<>();
    final List<SluiceProcess> processes = new ArrayList<>();
    /** This test's database. */
    String databaseName;
    /** Its JDBC URL, credentials included. */
    String databaseUrl;

    @BeforeAll
    static void startPostgres() {
        postgres = TestPostgres.startOrSkip(Assumptions::abort);
        home = Distribution.unpack(unpacked);
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @BeforeEach
    void freshDatabaseAndMocks() {
        databaseName = "two_" + (++databases);
        String url = postgres.createDatabase(databaseName);
        databaseUrl = url.replace("jdbc:postgresql://", "jdbc:postgresql://" + TestPostgres.USER + ":" + postgres.password() + "@");
        for (int i = 0; i < 3; i++) {
            mocks.add(MockUpstream.start().setDefault(MockResponse.completion("from-" + i)));
        }
    }

    @AfterEach
    void stopMocks() {
        mocks.forEach(MockUpstream::close);
    }

    /**
     * Starts A, then B, on this test's database.
     *
     * @param extraEnv settings both instances get besides the database, the admin and the secret key
     * @return A and B
     */
    List<SluiceClient> twoInstances(Map<String, String> extraEnv) {
        return instances(List.of(extraEnv, extraEnv));
    }

    /**
     * Starts one instance per element, in order (the first migrates), on this test's database
     * (issue 37: clusters of more than two).
     *
     * @param extraEnvs per instance, the settings it gets besides the database, the admin and the secret key
     * @return the instances, in the same order ({@link #processes} holds their processes)
     */
    List<SluiceClient> instances(List<Map<String, String>> extraEnvs) {
        List<SluiceClient> out = new ArrayList<>();
        for (Map<String, String> extraEnv : extraEnvs) {
            Map<String, String> env = SluiceProcess.env(work.resolve(String.valueOf((char) ('a' + processes.size()))), adminKey);
            env.put("SLUICE_DATABASE_URL", databaseUrl);
            env.put("SLUICE_SECRET_KEY", secretKey);
            env.putAll(extraEnv);
            SluiceProcess p = servers.start(home, env);
            processes.add(p);
            out.add(new SluiceClient(p));
        }
        return out;
    }

    /**
     * A non-streaming chat request for {@code alpha/m}.
     *
     * @param c the instance
     * @param key the bearer key
     * @param headers further request headers
     * @return the answer
     */
    static HttpResponse<String> chat(SluiceClient c, String key, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(c.base().resolve("/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(SluiceClient.toJson(SluiceClient.chat("alpha/m", false))));
        headers.forEach(b::header);
        return send(b.build());
    }

    /**
     * A session-lease call ({@code POST /api/v1/session-leases}) of {@code owner} with a managed key.
     *
     * @param c the instance
     * @param key the key (scope {@code lease:exclusive})
     * @param owner the {@code X-Sluice-Lease-Owner}
     * @param body the action
     * @return the answer
     */
    static HttpResponse<String> lease(SluiceClient c, String key, String owner, String body) {
        HttpRequest r = HttpRequest.newBuilder(c.base().resolve("/api/v1/session-leases")).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json").header("X-Sluice-Lease-Owner", owner)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return send(r);
    }

    /**
     * Sends a request with the shared client.
     *
     * @param r the request
     * @return the answer
     */
    static HttpResponse<String> send(HttpRequest r) {
        try {
            return HTTP.send(r, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
