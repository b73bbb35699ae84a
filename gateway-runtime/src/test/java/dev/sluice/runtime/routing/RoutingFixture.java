package dev.sluice.runtime.routing;

import dev.sluice.api.ProviderClass;
import dev.sluice.runtime.security.SecretBox;
import dev.sluice.runtime.store.Connection;
import dev.sluice.runtime.store.ConnectionState;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.NewConnection;
import dev.sluice.runtime.store.JdbcConnectionStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/** A real connection store on a fresh SQLite database, and a clock the test moves by hand. */
final class RoutingFixture implements AutoCloseable {

    static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();

    private final AtomicLong now = new AtomicLong(T0);
    final InstantSource clock = () -> Instant.ofEpochMilli(now.get());
    final Database db;
    final JdbcConnectionStore store;

    RoutingFixture(Path dir) {
        db = Database.open(dir);
        store = new JdbcConnectionStore(db, SecretBox.fromBase64(Base64.getEncoder().encodeToString(new byte[32])), clock);
    }

    long now() {
        return now.get();
    }

    void advance(Duration d) {
        now.addAndGet(d.toMillis());
    }

    Connection add(String provider, String name, int priority) {
        return add(provider, name, priority, true, null);
    }

    Connection add(String provider, String name, int priority, boolean enabled, String baseUrl) {
        return store.create(new NewConnection(provider, name, ProviderClass.APIKEY, "sk-" + name, null, baseUrl, priority, enabled,
                null, null, false, null, null, null));
    }

    Connection state(Connection c, String testStatus, Long rateLimitedUntil) {
        return store.updateState(c.id(), new ConnectionState(testStatus, rateLimitedUntil, null, null, null, 0, 0)).orElseThrow();
    }

    @Override
    public void close() {
        db.close();
    }
}
