package dev.sluice.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.runtime.store.Database;

/**
 * How this instance is deployed, for {@code GET /api/monitoring/health} (NF-6): the mode
 * ({@code single}: SQLite, one instance; {@code postgres}: the durable records in a PostgreSQL
 * database several instances share), this instance's id, and whether each store answers.
 *
 * @param instanceId random per start, also logged at start
 * @param database the durable store
 */
record Deployment(String instanceId, Database database) {

    /** The mode with SQLite. */
    static final String SINGLE = "single";
    /** The mode with only {@code SLUICE_DATABASE_URL} set. */
    static final String POSTGRES = "postgres";

    /** Adds {@code mode}, {@code instanceId} and {@code stores} to a health document; the URL shows no password. */
    void describe(ObjectNode root) {
        root.put("mode", database.shared() ? POSTGRES : SINGLE);
        root.put("instanceId", instanceId);
        root.putObject("stores").putObject("database")
                .put("kind", database.dialect().kind())
                .put("reachable", database.ping())
                .put("url", database.url());
    }
}
