package dev.sluice.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.runtime.http.OpenConnections.Phase;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Read deadlines per phase and room-making at the cap (issue 29), on a test clock. */
class OpenConnectionsTest {

    private static final long S = 1_000_000_000L;

    private final AtomicLong clock = new AtomicLong(-5 * S); // monotonic time may be negative
    private final OpenConnections open = new OpenConnections(10 * S, 30 * S, 60 * S, 3, clock::get);

    /** A connection that records being closed; {@link #read()} starts a read as the connection's thread would. */
    private final class Conn extends OpenConnections.Entry {
        boolean closed;

        Conn() {
            super(clock.get());
        }

        Conn read() {
            readDeadline = open.deadline(this, clock.get());
            return this;
        }

        Conn spoke(Phase p) {
            headStartedAt = clock.get();
            phase = p;
            return this;
        }

        @Override
        void close() {
            closed = true;
        }
    }

    private void advance(long nanos) {
        clock.addAndGet(nanos);
        open.sweep();
    }

    @Test
    void aConnectionThatNeverSpeaksIsClosedAtTheFirstByteTimeout() {
        Conn c = new Conn();
        assertThat(open.admit(c)).isTrue();
        c.read();
        advance(10 * S - 1);
        assertThat(c.closed).isFalse();
        advance(1);
        assertThat(c.closed).isTrue();
        assertThat(open.size()).isZero();
    }

    @Test
    void aTricklingHeadIsClosedThirtySecondsAfterItsFirstByteHoweverOftenBytesArrive() {
        Conn c = new Conn();
        open.admit(c);
        advance(5 * S);
        c.spoke(Phase.HEAD).read();
        for (int i = 0; i < 5; i++) {
            advance(5 * S); // one header line every 5 s: each read ends long before the idle bound
            assertThat(c.closed).isFalse();
            c.read();
        }
        advance(5 * S - 1);
        assertThat(c.closed).isFalse();
        advance(1);
        assertThat(c.closed).as("30 s after the first byte").isTrue();
    }

    @Test
    void keepAliveAndBodyReadsKeepTheIdleBoundPerRead() {
        Conn c = new Conn();
        open.admit(c);
        c.spoke(Phase.HEAD);
        c.phase = Phase.BUSY;
        c.read();
        advance(59 * S);
        c.read(); // a body byte arrived in time: the bound starts again
        advance(59 * S);
        assertThat(c.closed).isFalse();
        c.phase = Phase.IDLE;
        c.read();
        advance(60 * S);
        assertThat(c.closed).isTrue();
    }

    @Test
    void aHeadBoundNeverOutlastsTheIdleBoundOfOneRead() {
        OpenConnections shortIdle = new OpenConnections(10 * S, 30 * S, S, 3, clock::get);
        Conn c = new Conn().spoke(Phase.HEAD);
        assertThat(shortIdle.deadline(c, clock.get())).isEqualTo(clock.get() + S);
    }

    @Test
    void aConnectionNotReadingIsNeverClosedByTheSweep() {
        Conn c = new Conn();
        open.admit(c);
        c.phase = Phase.BUSY; // a handler runs; no read in progress
        advance(3600 * S);
        assertThat(c.closed).isFalse();
        assertThat(open.size()).isOne();
    }

    @Test
    void atTheCapTheOldestSilentConnectionMakesRoomBeforeAnyIdleOrBusyOne() {
        Conn busy = new Conn().spoke(Phase.BUSY);
        Conn idle = new Conn().spoke(Phase.IDLE);
        Conn silent = new Conn();
        open.admit(busy);
        open.admit(idle);
        open.admit(silent);
        Conn fresh = new Conn();
        assertThat(open.admit(fresh)).isTrue();
        assertThat(silent.closed).isTrue();
        assertThat(idle.closed).isFalse();
        assertThat(busy.closed).isFalse();
        assertThat(open.size()).isEqualTo(3);
    }

    @Test
    void aHalfSentHeadMakesRoomBeforeAKeepAliveConnection() {
        Conn idle = new Conn().spoke(Phase.IDLE);
        Conn trickling = new Conn().spoke(Phase.HEAD);
        Conn busy = new Conn().spoke(Phase.BUSY);
        open.admit(idle);
        open.admit(trickling);
        open.admit(busy);
        open.admit(new Conn());
        assertThat(trickling.closed).isTrue();
        assertThat(idle.closed).isFalse();
    }

    @Test
    void withoutSilentConnectionsTheOldestIdleOneMakesRoom() {
        Conn idle1 = new Conn().spoke(Phase.IDLE);
        Conn busy = new Conn().spoke(Phase.BUSY);
        Conn idle2 = new Conn().spoke(Phase.IDLE);
        open.admit(idle1);
        open.admit(busy);
        open.admit(idle2);
        assertThat(open.admit(new Conn())).isTrue();
        assertThat(idle1.closed).isTrue();
        assertThat(idle2.closed).isFalse();
    }

    @Test
    void whenEveryConnectionIsInsideARequestTheNewOneIsRefused() {
        for (int i = 0; i < 3; i++) {
            open.admit(new Conn().spoke(Phase.BUSY));
        }
        assertThat(open.admit(new Conn())).isFalse();
        assertThat(open.size()).isEqualTo(3);
    }

    @Test
    void anEndedConnectionFreesItsPlaceOnce() {
        Conn a = new Conn();
        open.admit(a);
        open.remove(a);
        open.remove(a);
        assertThat(open.size()).isZero();
        for (int i = 0; i < 3; i++) {
            open.admit(new Conn().spoke(Phase.BUSY));
        }
        assertThat(open.size()).isEqualTo(3);
    }
}
