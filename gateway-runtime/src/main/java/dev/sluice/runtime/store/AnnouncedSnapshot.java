package dev.sluice.runtime.store;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * One table's in-memory snapshot, as the stores that several instances share keep it (issue 35: the
 * one "write, announce, reload, follow the feed" of the connection, key and combo stores): a write
 * and its announcement commit in one transaction, then the snapshot is read again; snapshots are
 * published in the order their reads saw the database (a lock held from the write to the publish);
 * another instance's announcement re-reads it ({@link #follow}). Reads are a volatile read.
 *
 * @param <S> the snapshot (immutable)
 */
final class AnnouncedSnapshot<S> {

    private final Database db;
    private final String topic;
    private final Database.Work<S> read;
    private final ReentrantLock publishing = new ReentrantLock();
    private volatile S current;

    /**
     * Reads the snapshot once.
     *
     * @param db the database
     * @param topic what this table's change notifications name
     * @param read reads the whole snapshot on a connection
     */
    AnnouncedSnapshot(Database db, String topic, Database.Work<S> read) {
        this.db = db;
        this.topic = topic;
        this.read = read;
        reload();
    }

    /** @return the snapshot in force */
    S get() {
        return current;
    }

    /**
     * Writes and announces the whole table changed, in one transaction; then reads the snapshot again.
     *
     * @param work the write
     * @param <T> what the write returns
     * @return what the write returned
     */
    <T> T write(Database.Work<T> work) {
        return write(null, work, null);
    }

    /**
     * Writes and announces one subject changed ({@code topic:subject}), in one transaction; then
     * applies {@code refresh} to the snapshot (a re-read of that row) instead of reading all of it.
     *
     * @param subject the row's key, or null for the whole table
     * @param work the write
     * @param refresh the new snapshot from the old, or null to read it whole
     * @param <T> what the write returns
     * @return what the write returned
     */
    <T> T write(String subject, Database.Work<T> work, UnaryOperator<S> refresh) {
        publishing.lock();
        try {
            T result = db.inTransaction(c -> {
                T r = work.run(c);
                db.announce(c, subject == null ? topic : topic + ":" + subject);
                return r;
            });
            if (refresh == null) {
                reload();
            } else {
                update(refresh);
            }
            return result;
        } finally {
            publishing.unlock();
        }
    }

    /** Reads the whole snapshot again. */
    void reload() {
        publishing.lock();
        try {
            current = db.withConnection(read);
        } finally {
            publishing.unlock();
        }
    }

    /**
     * Replaces the snapshot by a change of it, in order with the writes.
     *
     * @param change the new snapshot from the old
     */
    void update(UnaryOperator<S> change) {
        publishing.lock();
        try {
            current = change.apply(current);
        } finally {
            publishing.unlock();
        }
    }

    /**
     * Follows the other instances' announcements: the whole table is read again, or {@code oneRow}
     * handles an announcement that names one subject.
     *
     * @param feed the change notifications
     * @param oneRow re-reads one subject, or null to read the whole table for every announcement
     */
    void follow(ChangeFeed feed, java.util.function.Consumer<String> oneRow) {
        feed.subscribe(topic, subject -> {
            if (subject == null || oneRow == null) {
                reload();
            } else {
                oneRow.accept(subject);
            }
        });
    }
}
