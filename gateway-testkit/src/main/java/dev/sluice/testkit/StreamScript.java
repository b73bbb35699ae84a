package dev.sluice.testkit;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/**
 * The immutable plan of a scripted stream ({@link MockResponse#stream()}): steps played in order
 * after the response headers, then an ending. {@code MockConnection} plays it, one HTTP chunk and
 * one flush per write, so each step reaches the client on its own and on time.
 *
 * @param steps the writes and pauses, in order
 * @param ending what happens after the last step
 * @param heartbeat for {@link Ending#HOLD}: bytes written every {@code heartbeatInterval} while
 *     holding, or null to hold in silence
 * @param heartbeatInterval the heartbeat period; null when there is no heartbeat
 */
record StreamScript(List<Step> steps, Ending ending, byte[] heartbeat, Duration heartbeatInterval) {

    StreamScript {
        steps = List.copyOf(steps);
        requireNonNull(ending, "ending is null");
        if ((heartbeat == null) != (heartbeatInterval == null) || (heartbeat != null && ending != Ending.HOLD)) {
            throw new IllegalArgumentException("a heartbeat needs an interval and a HOLD ending");
        }
    }

    /** One step of the script. */
    sealed interface Step {
        /** Writes these bytes as one chunk and flushes. */
        record Write(byte[] bytes) implements Step {
        }

        /** Waits this long (ends early when the client leaves or the mock closes). */
        record Pause(Duration duration) implements Step {
        }
    }

    /** What the stream does after its last step. */
    enum Ending {
        /** Writes the last chunk: a complete body; the connection stays usable. */
        END,
        /** Closes the connection (FIN) without the last chunk: a body cut short. */
        CLOSE,
        /** Aborts the connection with a TCP RST. */
        RESET,
        /** Sends nothing more (but the heartbeat, if any) until the client leaves or the mock closes. */
        HOLD
    }
}
