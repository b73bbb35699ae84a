package dev.sluice.runtime.redis;

import dev.sluice.testkit.TestRedis;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A throwaway redis-server per test and the instances' shared state on it, all closed after the
 * test (skipped without the binary, failed with {@code SLUICE_REQUIRE_REDIS=1}). Register with
 * {@code @RegisterExtension final RedisInstances redis = new RedisInstances();}.
 */
final class RedisInstances implements BeforeEachCallback, AfterEachCallback {

    private TestRedis server;
    private final List<SharedState> instances = new ArrayList<>();

    @Override
    public void beforeEach(ExtensionContext context) {
        server = TestRedis.startOrSkip(Assumptions::abort);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        instances.forEach(SharedState::close);
        instances.clear();
        if (server != null) {
            server.close();
        }
    }

    /** @return the server */
    TestRedis server() {
        return server;
    }

    /** Restarts the server (empty) on the same port; the instances stay. */
    void restart() {
        server = server.restart();
    }

    /** @return settings for the server, with a permit expiry of 30 s */
    RedisSettings settings() {
        return RedisSettings.of(server.url(), 30_000L, "test");
    }

    /** @return one instance's shared state, permits expiring after 30 s */
    SharedState instance() {
        return instance(30_000);
    }

    /**
     * @param permitTtlMs how long the instance's permits outlive it
     * @return one instance's shared state
     */
    SharedState instance(long permitTtlMs) {
        SharedState s = SharedState.open(RedisSettings.of(server.url(), permitTtlMs, "test"), java.time.Clock.systemUTC());
        instances.add(s);
        return s;
    }

    /**
     * An instance the test closed itself (a killed one): not closed again after the test.
     *
     * @param s the instance
     */
    void forget(SharedState s) {
        instances.remove(s);
    }
}
