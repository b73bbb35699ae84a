package dev.sluice.runtime.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testkit.TestClock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A shared board's local copy (issue 26): entries count until their local expiry, then read as absent. */
class MirrorTest {

    private final TestClock clock = TestClock.create();
    private final Mirror<String, String> mirror = new Mirror<>(clock);

    @Test
    void anEntryCountsForItsRemainingTimeOnThisInstancesClock_issue26() {
        mirror.put("c1", "v", 1_000);
        assertThat(mirror.remainingMs("c1")).isEqualTo(1_000);
        clock.advance(Duration.ofMillis(999));
        assertThat(mirror.remainingMs("c1")).isEqualTo(1);
        assertThat(mirror.get("c1").value()).isEqualTo("v");
        clock.advance(Duration.ofMillis(1));
        assertThat(mirror.get("c1")).isNull();
        assertThat(mirror.remainingMs("c1")).isZero();
        assertThat(mirror.size()).as("an expired entry is dropped when read").isZero();
    }

    @Test
    void aWithdrawalOrANonPositiveTimeForgetsTheKey_issue26() {
        mirror.put("c1", "v", 1_000);
        mirror.put("c1", "v", 0);
        assertThat(mirror.get("c1")).isNull();
        mirror.put("c2", "v", 1_000);
        mirror.remove("c2");
        assertThat(mirror.get("c2")).isNull();
        mirror.put("p:a", "v", 1_000);
        mirror.put("q:b", "v", 1_000);
        mirror.removeIf(k -> k.startsWith("p:"));
        assertThat(mirror.get("p:a")).isNull();
        assertThat(mirror.get("q:b")).isNotNull();
    }

    @Test
    void aReadOfRedisReplacesTheWholeCopy_issue26() {
        mirror.put("gone", "v", 10_000);
        mirror.put("kept", "old", 10_000);
        mirror.replace(Map.of("kept", mirror.timed("new", 5_000), "added", mirror.timed("v", 2_000)), Mirror.mark());
        assertThat(mirror.get("gone")).as("absent from Redis now: a withdrawal this instance missed").isNull();
        assertThat(mirror.get("kept").value()).isEqualTo("new");
        assertThat(mirror.remainingMs("kept")).isEqualTo(5_000);
        assertThat(mirror.remainingMs("added")).isEqualTo(2_000);
    }

    @Test
    void aWriteMadeWhileRedisWasReadOutlivesTheRead_issue26() {
        mirror.put("old", "v", 10_000);
        long mark = Mirror.mark(); // the read of Redis begins: it lists no keys yet
        mirror.put("raced", "mine", 2_000); // this instance's write lands after the listing
        mirror.put("both", "mine", 3_000);
        mirror.replace(Map.of("both", mirror.timed("read", 9_000)), mark);
        assertThat(mirror.remainingMs("raced")).as("not undone by the older read").isEqualTo(2_000);
        assertThat(mirror.get("both").value()).as("the newer write wins").isEqualTo("mine");
        assertThat(mirror.get("old")).as("written before the read and absent from Redis").isNull();
        assertThat(mirror.writtenAfter(mark)).isTrue();
        assertThat(mirror.writtenAfter(Mirror.mark())).isFalse();
    }

    @Test
    void aWriteOrWithdrawalThatReachesRedisAfterTheReadListedTheKeysIsConfirmedAndKept_issue26() {
        Mirror.Timed<String> locked = mirror.put("locked", "mine", 2_000); // put before the Redis write
        mirror.put("cleared", "v", 5_000);
        long mark = Mirror.mark(); // the read begins and lists the keys: "locked" is not in Redis yet, "cleared" still is
        mirror.confirm("locked", locked); // the write reached Redis
        Mirror.Timed<String> withdrawn = mirror.remove("cleared");
        mirror.confirm("cleared", withdrawn); // the DEL reached Redis
        mirror.replace(Map.of("cleared", mirror.timed("v", 5_000)), mark);
        assertThat(mirror.remainingMs("locked")).isEqualTo(2_000);
        assertThat(mirror.get("cleared")).as("a withdrawal the read did not see yet stays withdrawn").isNull();
        clock.advance(Duration.ofMillis(Mirror.WITHDRAWN_FOR_MS));
        mirror.replace(Map.of(), Mirror.mark());
        assertThat(mirror.size()).as("the withdrawal's marker expires").isZero();
    }

    @Test
    void aReadThatReplacedTheCopyBeforeAWriteReachedRedisDoesNotLoseIt_issue26() {
        // CI, twice: the start-up read of Redis listed no key, replaced the copy between this instance's write to
        // the copy and the write to Redis, and the instance forgot its own lockout for its whole duration
        long mark = Mirror.mark();
        Mirror.Timed<String> locked = mirror.put("locked", "mine", 2_000);
        Mirror.Timed<String> older = mirror.put("older", "mine", 3_000);
        mirror.replace(Map.of(), Mirror.mark()); // the read, begun after both puts (mark taken after them)
        assertThat(mirror.get("locked")).as("gone for the moment").isNull();
        mirror.confirm("locked", locked); // the write reached Redis
        assertThat(mirror.remainingMs("locked")).isEqualTo(2_000);
        mirror.put("older", "newer", 4_000); // a later write of the key wins over a late confirmation of an older one
        mirror.confirm("older", older);
        assertThat(mirror.get("older").value()).isEqualTo("newer");
        assertThat(mark).isLessThan(Mirror.mark());
    }

    @Test
    void manyExpiredKeysNobodyReadsAgainAreSweptByWrites_issue26() {
        for (int i = 0; i < Mirror.SWEEP_ABOVE; i++) {
            mirror.put("k" + i, "v", 10);
        }
        clock.advance(Duration.ofMillis(10));
        mirror.put("fresh", "v", 1_000);
        mirror.put("fresh2", "v", 1_000);
        assertThat(mirror.size()).isEqualTo(2);
    }
}
