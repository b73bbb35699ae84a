package dev.sluice.runtime.stream;

import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;

/**
 * What one frame of a stream proves to the watchdogs, whatever its wire form (a canonical chunk, a
 * raw SSE event passed through).
 *
 * @param heartbeat a keep-alive of the upstream's (relayed, never progress)
 * @param useful opens the readiness gate: content, a tool call, reasoning or a finish (ST-0)
 * @param activity restarts the stall timer: content, a tool call or reasoning (ST-1)
 * @param suspendsThroughput a tool call or reasoning is streaming: the throughput watchdog does not judge (ST-3)
 * @param textBytes UTF-8 bytes of useful text, the throughput watchdog's measure (ST-3)
 */
public record Signal(boolean heartbeat, boolean useful, boolean activity, boolean suspendsThroughput, int textBytes) {

    /** Proves nothing (metadata, role-only, usage-only). */
    public static final Signal NOTHING = new Signal(false, false, false, false, 0);
    /** A keep-alive of the upstream's. */
    public static final Signal HEARTBEAT = new Signal(true, false, false, false, 0);

    /**
     * The signal of a canonical chunk.
     *
     * @param c the chunk
     * @return what it proves
     */
    public static Signal of(StreamChunk c) {
        return c.kind() == FrameKind.HEARTBEAT ? HEARTBEAT
                : new Signal(false, Progress.useful(c), Progress.activity(c), Progress.suspendsThroughput(c), Progress.textBytes(c));
    }
}
