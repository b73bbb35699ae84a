package dev.sluice.runtime.store;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The change notifications of a shared PostgreSQL database (NF-6): one dedicated connection per
 * instance that {@code LISTEN}s on {@value Database#CHANNEL} and hands each notification to the
 * snapshots that hold what it names, so an admin write on one instance is seen by the others
 * within about a second, and no request reads the database.
 *
 * <p>A payload is {@code what} (re-read everything of that kind) or {@code what:id} (re-read one
 * record). The listener runs on a daemon thread of its own; when its connection drops it
 * reconnects with a backoff of 100 ms doubling to 5 s, and after every (re)connection it calls
 * every subscriber with no id — a full re-read — because notifications sent while it was away are
 * lost. With SQLite (one process) the feed does nothing.
 */
public final class ChangeFeed implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ChangeFeed.class.getName());
    /** How long one wait for notifications lasts; also how often the connection is checked. */
    static final int POLL_MS = 500;
    /** A quiet connection is probed this often, so a silently dead one is noticed. */
    static final long PROBE_EVERY_MS = 5_000;
    static final long MIN_BACKOFF_MS = 100;
    static final long MAX_BACKOFF_MS = 5_000;

    private final Database db;
    private final Map<String, List<Consumer<String>>> subscribers = new ConcurrentHashMap<>();
    private volatile boolean running;
    private volatile boolean listening;
    private volatile Thread thread;
    private volatile Connection connection;

    /**
     * Creates the feed of a database; {@link #start} starts listening.
     *
     * @param db the database
     */
    public ChangeFeed(Database db) {
        this.db = requireNonNull(db, "db is null");
    }

    /**
     * Calls {@code onChange} for every notification about {@code what}: with the record's id, or
     * with null when everything of that kind must be re-read.
     *
     * @param what the kind of record ({@code connections}, {@code keys}, …)
     * @param onChange the re-read
     */
    public void subscribe(String what, Consumer<String> onChange) {
        subscribers.computeIfAbsent(what, k -> new CopyOnWriteArrayList<>()).add(requireNonNull(onChange, "onChange is null"));
    }

    /** Starts listening (PostgreSQL only). */
    public synchronized void start() {
        if (!db.shared() || running) {
            return;
        }
        running = true;
        thread = Thread.ofPlatform().daemon().name("sluice-change-feed").start(this::run);
    }

    /** @return true while the listening connection is up (always false with SQLite) */
    public boolean listening() {
        return listening;
    }

    private void run() {
        long backoff = MIN_BACKOFF_MS;
        while (running) {
            try (Connection c = Database.dataSource(db.target(), (int) (PROBE_EVERY_MS / 1000) * 2).getConnection()) {
                connection = c;
                try (Statement s = c.createStatement()) {
                    s.execute("LISTEN " + Database.CHANNEL);
                }
                listening = true;
                backoff = MIN_BACKOFF_MS;
                // whatever changed before LISTEN took effect (start-up, a disconnect) was not announced to us
                dispatchAll();
                listen(c);
            } catch (SQLException | RuntimeException e) {
                if (running) {
                    LOG.log(System.Logger.Level.WARNING, "change notifications interrupted (" + e.getMessage() + "); reconnecting in "
                            + backoff + " ms");
                }
            } finally {
                listening = false;
                connection = null;
            }
            if (running) {
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException e) {
                    return;
                }
                backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
            }
        }
    }

    private void listen(Connection c) throws SQLException {
        PGConnection pg = c.unwrap(PGConnection.class);
        long quietNanos = 0;
        while (running) {
            long t0 = System.nanoTime();
            PGNotification[] batch = pg.getNotifications(POLL_MS);
            if (batch != null && batch.length > 0) {
                for (PGNotification n : batch) {
                    dispatch(n.getParameter());
                }
                quietNanos = 0;
            } else {
                quietNanos += System.nanoTime() - t0;
            }
            if (quietNanos >= PROBE_EVERY_MS * 1_000_000) {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT 1");
                }
                quietNanos = 0;
            }
        }
    }

    /** Hands one payload to its subscribers. */
    void dispatch(String payload) {
        int colon = payload.indexOf(':');
        String what = colon < 0 ? payload : payload.substring(0, colon);
        String id = colon < 0 ? null : payload.substring(colon + 1);
        for (Consumer<String> s : subscribers.getOrDefault(what, List.of())) {
            call(what, s, id);
        }
    }

    private void dispatchAll() {
        subscribers.forEach((what, list) -> list.forEach(s -> call(what, s, null)));
    }

    private static void call(String what, Consumer<String> s, String id) {
        try {
            s.accept(id);
        } catch (RuntimeException e) {
            // the next notification or reconnection re-reads again; the listener must live on
            LOG.log(System.Logger.Level.WARNING, "re-reading " + what + " after a change notification failed: " + e.getMessage());
        }
    }

    /** Stops listening and closes the connection. */
    @Override
    public void close() {
        running = false;
        Thread t = thread;
        if (t == null) {
            return;
        }
        t.interrupt();
        Connection c = connection;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // closing anyway
            }
        }
        try {
            t.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
