package dev.sluice.runtime.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.session.SessionPins.Pin;
import dev.sluice.runtime.store.Database;
import dev.sluice.runtime.store.JdbcSessionPinStore;
import dev.sluice.runtime.store.JdbcSessionPinStore.PinRow;
import dev.sluice.testkit.TestClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Session pins on a test clock and a fresh SQLite database (SPEC SA-1, SA-2): pin, move, expire, write-through, evict. */
class SessionPinsTest {

    private static final long TTL = 60_000;

    @TempDir
    Path dir;
    Database db;
    JdbcSessionPinStore store;
    final TestClock clock = TestClock.create();
    final AtomicLong ttl = new AtomicLong(TTL);
    SessionPins pins;

    @BeforeEach
    void open() {
        db = Database.open(dir);
        store = new JdbcSessionPinStore(db);
        pins = new SessionPins(store, clock, ttl::get);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    private PinRow row(String sessionKey) {
        return store.find(sessionKey, "acme").orElseThrow();
    }

    @Test
    void aServedSessionIsPinnedToItsConnectionUntilItIsUnseenForTheTtl_SA1() {
        pins.served("s1", "acme", "c1");
        assertThat(pins.pinned("s1", "acme")).isEqualTo("c1");
        assertThat(pins.pinned("s1", "other")).as("a pin is per provider").isNull();
        assertThat(pins.pinned(null, "acme")).isNull();
        advance(TTL - 1);
        assertThat(pins.pinned("s1", "acme")).isEqualTo("c1");
        advance(1);
        assertThat(pins.pinned("s1", "acme")).as("unseen for the TTL").isNull();
        assertThat(pins.list()).isEmpty();
    }

    @Test
    void eachRequestOfTheSessionStartsTheTtlAgain_SA1() {
        pins.served("s1", "acme", "c1");
        advance(TTL - 1);
        pins.served("s1", "acme", "c1");
        advance(TTL - 1);
        assertThat(pins.pinned("s1", "acme")).isEqualTo("c1");
    }

    @Test
    void aSessionServedByAnotherConnectionMovesItsPinAndKeepsItsCreationTime_SA1() {
        long t0 = clock.millis();
        pins.served("s1", "acme", "c1");
        advance(1_000);
        pins.served("s1", "acme", "c2");
        assertThat(pins.pinned("s1", "acme")).isEqualTo("c2");
        assertThat(pins.list()).containsExactly(new Pin("s1", "acme", "c2", t0, t0 + 1_000));
        assertThat(row("s1")).as("a move is written at once").isEqualTo(new PinRow("s1", "acme", "c2", t0, t0 + 1_000));
    }

    @Test
    void aSessionBackAfterItsPinExpiredGetsAFreshPin_SA1() {
        pins.served("s1", "acme", "c1");
        advance(TTL);
        long back = clock.millis();
        pins.served("s1", "acme", "c1");
        assertThat(pins.list()).containsExactly(new Pin("s1", "acme", "c1", back, back));
    }

    @Test
    void pinsAreWrittenThroughAndSurviveARestart_SA2() {
        long t0 = clock.millis();
        pins.served("s1", "acme", "c1");
        assertThat(store.loadAll()).containsExactly(new PinRow("s1", "acme", "c1", t0, t0));
        SessionPins restarted = new SessionPins(store, clock, ttl::get);
        assertThat(restarted.pinned("s1", "acme")).isEqualTo("c1");
        advance(TTL);
        assertThat(restarted.pinned("s1", "acme")).isNull();
    }

    @Test
    void theLastSeenTimeIsWrittenAtMostEveryTenthOfTheTtl_SA2() {
        long t0 = clock.millis();
        pins.served("s1", "acme", "c1");
        advance(TTL / 10 - 1);
        pins.served("s1", "acme", "c1");
        assertThat(row("s1").lastSeenAt()).as("not written on every request").isEqualTo(t0);
        assertThat(pins.list().getFirst().lastSeenAt()).as("in memory it is current").isEqualTo(t0 + TTL / 10 - 1);
        advance(1);
        pins.served("s1", "acme", "c1");
        assertThat(row("s1").lastSeenAt()).isEqualTo(t0 + TTL / 10);
    }

    @Test
    void withAShortTtlTheLastSeenTimeIsStillWrittenAtMostEverySecond_SA2() {
        ttl.set(5_000);
        long t0 = clock.millis();
        pins.served("s1", "acme", "c1");
        advance(999);
        pins.served("s1", "acme", "c1");
        assertThat(row("s1").lastSeenAt()).isEqualTo(t0);
        advance(1);
        pins.served("s1", "acme", "c1");
        assertThat(row("s1").lastSeenAt()).isEqualTo(t0 + 1_000);
    }

    @Test
    void withTheTtlAtZeroNothingIsPinnedOrReadButLastUseIsKept_SA1() {
        ttl.set(0);
        pins.served("s1", "acme", "c1");
        assertThat(pins.pinned("s1", "acme")).isNull();
        assertThat(pins.list()).isEmpty();
        assertThat(store.loadAll()).isEmpty();
        assertThat(pins.lastUsed("c1")).isEqualTo(clock.millis());
        assertThat(pins.lastUsed("c2")).as("never served since start-up").isZero();

        ttl.set(TTL);
        pins.served("s1", "acme", "c1");
        ttl.set(0);
        assertThat(pins.pinned("s1", "acme")).as("turned off: pins are not read").isNull();
    }

    @Test
    void lastUseIsRecordedForRequestsWithoutASession() {
        pins.served(null, "acme", "c1");
        advance(5);
        pins.served(null, "acme", "c2");
        assertThat(pins.lastUsed("c1")).isEqualTo(clock.millis() - 5);
        assertThat(pins.lastUsed("c2")).isEqualTo(clock.millis());
        assertThat(pins.list()).isEmpty();
    }

    @Test
    void aFailoverEvictsTheConnectionsPinsFromMemoryAndTheTable_SA1() {
        pins.served("s1", "acme", "c1");
        pins.served("s2", "acme", "c1");
        pins.served("s3", "acme", "c2");
        assertThat(pins.evict("c1")).isEqualTo(2);
        assertThat(pins.pinned("s1", "acme")).isNull();
        assertThat(pins.pinned("s2", "acme")).isNull();
        assertThat(pins.pinned("s3", "acme")).isEqualTo("c2");
        assertThat(store.loadAll()).extracting(PinRow::sessionKey).containsExactly("s3");
        assertThat(pins.evict("c1")).isZero();
    }

    @Test
    void clearingWithoutAConnectionRemovesEveryPin() {
        pins.served("s1", "acme", "c1");
        pins.served("s2", "acme", "c2");
        assertThat(pins.clear(null)).isEqualTo(2);
        assertThat(pins.list()).isEmpty();
        assertThat(store.loadAll()).isEmpty();
        assertThat(new SessionPins(store, clock, ttl::get).pinned("s1", "acme")).isNull();
    }

    @Test
    void theListHoldsLivePinsMostRecentlySeenFirst() {
        pins.served("old", "acme", "c1");
        advance(10);
        pins.served("new", "acme", "c2");
        advance(TTL - 5); // "old" unseen for TTL + 5
        assertThat(pins.list()).extracting(Pin::sessionKey).containsExactly("new");
        pins.served("old", "acme", "c1");
        assertThat(pins.list()).extracting(Pin::sessionKey).containsExactly("old", "new");
    }

    @Test
    void theLogNamesAKeyByItsFirstCharactersOnly() {
        assertThat(SessionPins.shortKey("0123456789abcdef0123456789")).isEqualTo("0123456789abcdef012");
        assertThat(SessionPins.shortKey("short")).isEqualTo("short");
    }
}
