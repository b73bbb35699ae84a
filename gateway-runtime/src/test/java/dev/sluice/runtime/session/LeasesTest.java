package dev.sluice.runtime.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.LeaseRow;
import dev.sluice.runtime.store.JdbcLeaseStore;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lease state machine on a fake clock (SPEC SL-2…SL-5): expiry, fencing, transitions, capacity. */
class LeasesTest {

    @TempDir
    Path dir;
    Database db;
    TestClock clock = TestClock.create();
    Leases leases;
    /** The connections the fake routing rules call eligible, in order; a connection in {@code held} cannot serve. */
    List<String> eligible = new ArrayList<>(List.of("c1", "c2"));
    Set<String> cannotServe = new java.util.HashSet<>();

    final LeaseCandidates candidates = (model, keyId, allowed, ownerHash, only) -> {
        List<String> busy = new ArrayList<>();
        for (String c : eligible) {
            if ((only != null && !only.equals(c)) || cannotServe.contains(c)) {
                continue;
            }
            if (leases.heldByOther(c, ownerHash)) {
                busy.add(c);
                continue;
            }
            return new LeaseCandidates.Free(c);
        }
        return busy.isEmpty() ? new LeaseCandidates.NoneEligible(false, "none") : new LeaseCandidates.AllLeased(busy);
    };

    @BeforeEach
    void open() {
        db = Database.open(dir);
        leases = new Leases(new JdbcLeaseStore(db), clock);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private Leases.Result acquire(String owner) {
        return leases.acquire(owner, "key1", Set.of(), "alpha/m", Leases.DEFAULT_TTL_MS, candidates);
    }

    private static LeaseRow held(Leases.Result r) {
        assertThat(r).isInstanceOf(Leases.Held.class);
        return ((Leases.Held) r).lease();
    }

    @Test
    void acquireTakesAFreeConnectionAndReacquireReusesTheGeneration() {
        LeaseRow a = held(acquire("A"));
        assertThat(a.connectionId()).isEqualTo("c1");
        assertThat(a.generation()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(60));
        Leases.Held again = (Leases.Held) acquire("A");
        assertThat(again.reused()).isTrue();
        assertThat(again.lease().generation()).isEqualTo(1);
        assertThat(again.lease().expiresAt()).isEqualTo(clock.millis() + Leases.DEFAULT_TTL_MS);
        assertThat(held(acquire("B")).connectionId()).isEqualTo("c2");
        assertThat(leases.acquire("A", "other-key", Set.of(), "alpha/m", 1000, candidates)).isInstanceOf(Leases.Stale.class);
    }

    @Test
    void whenEveryEligibleConnectionIsHeldTheAnswerIsCapacityWithTheEarliestExpiry_SL5() {
        held(acquire("A"));
        clock.advance(Duration.ofSeconds(30));
        held(acquire("B"));
        Leases.Result r = acquire("C");
        assertThat(r).isEqualTo(new Leases.Capacity(90));
        eligible.clear();
        assertThat(acquire("D")).as("no eligible connection at all is not a lease conflict").isInstanceOf(Leases.Ineligible.class);
    }

    @Test
    void expiryIsLazyAndEndsTheLeaseAsExpired_SL2() {
        LeaseRow a = held(acquire("A"));
        assertThat(leases.heldByOther("c1", "B")).isTrue();
        clock.advance(Duration.ofMillis(Leases.DEFAULT_TTL_MS));
        assertThat(leases.heldByOther("c1", "B")).as("an expired lease holds nothing").isFalse();
        assertThat(leases.claim("A", "key1", a.generation())).isInstanceOf(Leases.Stale.class);
        assertThat(new JdbcLeaseStore(db).find("A", 1).orElseThrow().state()).isEqualTo("EXPIRED");
        assertThat(new JdbcLeaseStore(db).find("A", 1).orElseThrow().endReason()).isEqualTo("TTL_EXPIRED");
        assertThat(held(acquire("A")).generation()).as("a new lease, the next generation").isEqualTo(2);
    }

    @Test
    void theFenceChecksOwnerGenerationKeyAndConnection_SL3() {
        LeaseRow a = held(acquire("A"));
        assertThat(leases.fenceHolds("A", 1, "key1", "c1")).isTrue();
        assertThat(leases.fenceHolds("A", 2, "key1", "c1")).isFalse();
        assertThat(leases.fenceHolds("A", 1, "key2", "c1")).isFalse();
        assertThat(leases.fenceHolds("A", 1, "key1", "c2")).isFalse();
        assertThat(leases.fenceHolds("B", 1, "key1", "c1")).isFalse();
        assertThat(leases.renew("A", "key1", 2, 1000)).isInstanceOf(Leases.Stale.class);
        assertThat(leases.release("A", "key1", a.generation(), "OWNER_EXIT")).isInstanceOf(Leases.Ended.class);
        assertThat(leases.fenceHolds("A", 1, "key1", "c1")).isFalse();
        Leases.Result twice = leases.release("A", "key1", a.generation(), "CLIENT_CANCELLED");
        assertThat(((Leases.Ended) twice).lease().endReason()).as("idempotent: the first end stands").isEqualTo("OWNER_EXIT");
    }

    @Test
    void aLeaseWhoseConnectionCannotServeMovesWithTheNextGenerationAndTheOldRowIsInvalidated_SL4() {
        LeaseRow a = held(acquire("A"));
        cannotServe.add("c1");
        Leases.Held moved = (Leases.Held) leases.keepServable(a, "alpha/m", Set.of(), candidates);
        assertThat(moved.moved()).isTrue();
        assertThat(moved.lease().connectionId()).isEqualTo("c2");
        assertThat(moved.lease().generation()).isEqualTo(2);
        assertThat(new JdbcLeaseStore(db).find("A", 1).orElseThrow().state()).isEqualTo("INVALIDATED");
        assertThat(leases.fenceHolds("A", 1, "key1", "c1")).isFalse();
        assertThat(leases.fenceHolds("A", 2, "key1", "c2")).isTrue();
        assertThat(leases.heldByOther("c1", "B")).isFalse();
    }

    @Test
    void activeLeasesSurviveARestart() {
        held(acquire("A"));
        Leases reopened = new Leases(new JdbcLeaseStore(db), clock);
        assertThat(reopened.fenceHolds("A", 1, "key1", "c1")).isTrue();
        assertThat(reopened.activeCount()).isEqualTo(1);
    }
}
