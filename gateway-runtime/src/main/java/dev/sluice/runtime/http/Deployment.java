package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.redis.SharedState;
import dev.sluice.runtime.store.Database;

/**
 * How this instance is deployed, for {@code GET /api/monitoring/health} (NF-6): the mode
 * ({@code single}: SQLite, one instance; {@code postgres}: the durable records in a PostgreSQL
 * database several instances share; {@code shared}: that, and the hot resilience state in Redis),
 * this instance's id, and whether each store answers.
 *
 * @param instanceId random per start, also logged at start
 * @param database the durable store
 * @param shared the hot state shared through Redis, if configured
 */
record Deployment(String instanceId, Database database, SharedState shared) {

    /** The mode with SQLite. */
    static final String SINGLE = "single";
    /** The mode with only {@code SLUICE_DATABASE_URL} set. */
    static final String POSTGRES = "postgres";
    /** The mode with {@code SLUICE_DATABASE_URL} and {@code SLUICE_REDIS_URL} set. */
    static final String SHARED = "shared";

    /**
     * Adds {@code mode}, {@code instanceId} and {@code stores} to a health document; URLs show no password.
     *
     * @param root the document
     * @return true when every store answers
     */
    boolean describe(ObjectNode root) {
        root.put("mode", shared.configured() ? SHARED : database.shared() ? POSTGRES : SINGLE);
        root.put("instanceId", instanceId);
        ObjectNode stores = root.putObject("stores");
        boolean dbUp = database.ping();
        stores.putObject("database")
                .put("kind", database.dialect().kind())
                .put("reachable", dbUp)
                .put("url", database.url());
        if (!shared.configured()) {
            return dbUp;
        }
        boolean redisUp = shared.reachable();
        stores.putObject("redis")
                .put("kind", "redis")
                .put("reachable", redisUp)
                .put("url", shared.url())
                .put("permitsFailedOpen", shared.permitsFailedOpen())
                .put("pacingFailedOpen", shared.pacingFailedOpen())
                .put("queueFailedOpen", shared.queueFailedOpen())
                // whether this instance hears the others' pauses, learned pacing, resets and clears
                .put("eventsSubscribed", shared.eventsSubscribed());
        return dbUp && redisUp;
    }
}
