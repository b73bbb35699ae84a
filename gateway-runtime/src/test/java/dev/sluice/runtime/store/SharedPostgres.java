package dev.sluice.runtime.store;


import dev.sluice.testkit.TestPostgres;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * One PostgreSQL server for the PostgreSQL tests of this JVM, started on first use and stopped
 * when the JVM ends; each test takes a fresh database of its own. Without PostgreSQL the tests are
 * skipped, or fail when {@code SLUICE_REQUIRE_POSTGRES=1}.
 */
public final class SharedPostgres {

    private static TestPostgres server;
    private static final AtomicInteger DATABASES = new AtomicInteger();

    private SharedPostgres() {
    }

    /** @return the running server (started now when it is the first use) */
    public static synchronized TestPostgres server() {
        if (server == null) {
            TestPostgres started = TestPostgres.startOrSkip(Assumptions::abort);
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "test-postgres-stop"));
            server = started;
        }
        return server;
    }

    /** @return the settings of a new, empty database, with the superuser's credentials */
    public static DatabaseSettings freshDatabase() {
        TestPostgres pg = server();
        String url = pg.createDatabase("t" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet());
        return DatabaseSettings.of(url, TestPostgres.USER, pg.password(), "test");
    }
}
