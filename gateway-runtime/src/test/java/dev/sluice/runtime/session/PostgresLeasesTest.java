package dev.sluice.runtime.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.DatabaseSettings;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcLeaseStore;
import dev.sluice.runtime.store.SharedPostgres;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases exact across instances (SL-3, SL-4, NF-6): two {@link Leases} on two {@link Database}s
 * sharing one PostgreSQL decide under the database's lease lock on the rows as stored, so they never
 * both hand out a connection and a generation one of them moved past is stale on the other at once.
 */
class PostgresLeasesTest {

    private final TestClock clock = TestClock.create();
    private final List<Database> open = new ArrayList<>();
    private Leases a;
    private Leases b;

    /** One connection, c1: free unless another owner's lease holds it, as this instance sees it. */
    private static LeaseCandidates oneConnection(Leases[] self) {
        return (model, keyId, allowed, ownerHash, only) -> self[0].heldByOther("c1", ownerHash)
                ? new LeaseCandidates.AllLeased(List.of("c1")) : new LeaseCandidates.Free("c1");
    }

    private final Leases[] selfA = new Leases[1];
    private final Leases[] selfB = new Leases[1];

    @BeforeEach
    void twoInstances() {
        DatabaseSettings target = SharedPostgres.freshDatabase();
        Database dbA = Database.open(Path.of("unused"), target);
        open.add(dbA);
        Database dbB = Database.open(Path.of("unused"), target);
        open.add(dbB);
        a = new Leases(new JdbcLeaseStore(dbA), clock);
        b = new Leases(new JdbcLeaseStore(dbB), clock);
        selfA[0] = a;
        selfB[0] = b;
    }

    @AfterEach
    void close() {
        open.forEach(Database::close);
    }

    @Test
    void racingAcquiresOnTwoInstancesHandOutTheOneConnectionOnce_SL4() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Callable<Leases.Result>> racers = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            String owner = "owner-" + i;
            boolean onA = i % 2 == 0;
            racers.add(() -> (onA ? a : b).acquire(owner, "key", Set.of(), "m", Leases.DEFAULT_TTL_MS, oneConnection(onA ? selfA : selfB)));
        }
        List<Leases.Result> results = new ArrayList<>();
        try {
            for (Future<Leases.Result> f : pool.invokeAll(racers)) {
                results.add(f.get());
            }
        } finally {
            pool.shutdown();
        }
        assertThat(results).filteredOn(r -> r instanceof Leases.Held).hasSize(1);
        assertThat(results).filteredOn(r -> r instanceof Leases.Capacity).hasSize(15);
    }

    @Test
    void aGenerationReplacedOnOneInstanceIsStaleOnTheOtherAtOnce_SL3() {
        Leases.Held first = (Leases.Held) a.acquire("owner", "key", Set.of(), "m", Leases.DEFAULT_TTL_MS, oneConnection(selfA));
        assertThat(b.claim("owner", "key", first.lease().generation())).isInstanceOf(Leases.Held.class);
        assertThat(a.release("owner", "key", first.lease().generation(), "done")).isInstanceOf(Leases.Ended.class);
        Leases.Held second = (Leases.Held) a.acquire("owner", "key", Set.of(), "m", Leases.DEFAULT_TTL_MS, oneConnection(selfA));
        assertThat(second.lease().generation()).isEqualTo(first.lease().generation() + 1);
        // no notification was awaited: B decides on the rows as stored
        assertThat(b.claim("owner", "key", first.lease().generation())).isInstanceOf(Leases.Stale.class);
        assertThat(b.claim("owner", "key", second.lease().generation())).isInstanceOf(Leases.Held.class);
        assertThat(b.acquire("other", "key", Set.of(), "m", Leases.DEFAULT_TTL_MS, oneConnection(selfB))).isInstanceOf(Leases.Capacity.class);
    }
}
