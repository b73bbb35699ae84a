package dev.sluice.runtime.stream;

import dev.sluice.api.chat.ChunkChoice;
import dev.sluice.api.chat.FrameKind;
import dev.sluice.api.chat.StreamChunk;
import java.nio.charset.StandardCharsets;

/**
 * What a stream chunk proves (SPEC ST-0, ST-1, ST-3). <em>Useful</em> (the readiness gate opens):
 * content, a tool call, reasoning, or a finish. <em>Activity</em> (the stall timer restarts): content,
 * a tool call or reasoning — Claude's {@code thinking_delta} even with empty text. Heartbeats,
 * comments, pings, role-only and usage-only frames prove neither.
 */
public final class Progress {

    private Progress() {
    }

    /**
     * Whether the chunk opens the readiness gate.
     *
     * @param c the chunk
     * @return true for content, tool calls, reasoning or a finish
     */
    public static boolean useful(StreamChunk c) {
        if (c.kind() == FrameKind.CONTENT || c.kind() == FrameKind.REASONING) {
            return true;
        }
        if (c.kind() == FrameKind.HEARTBEAT) {
            return false;
        }
        for (ChunkChoice choice : c.choices()) {
            if (choice.finishReason() != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the chunk is model activity that restarts the stall timer.
     *
     * @param c the chunk
     * @return true for content, tool calls or reasoning
     */
    public static boolean activity(StreamChunk c) {
        return c.kind() == FrameKind.CONTENT || c.kind() == FrameKind.REASONING;
    }

    /**
     * Whether the chunk carries tool-call or reasoning deltas: the throughput watchdog does not
     * judge while they stream (ST-3).
     *
     * @param c the chunk
     * @return true while a tool call or reasoning is in progress
     */
    public static boolean suspendsThroughput(StreamChunk c) {
        for (ChunkChoice choice : c.choices()) {
            // an empty reasoning_content some upstreams send on every content delta is no reasoning in progress
            if (!choice.toolCalls().isEmpty() || (choice.reasoningDelta() != null && !choice.reasoningDelta().isEmpty())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The useful text of the chunk, in UTF-8 bytes (the throughput watchdog's measure, ST-3).
     *
     * @param c the chunk
     * @return the bytes of its text deltas
     */
    public static int textBytes(StreamChunk c) {
        int n = 0;
        for (ChunkChoice choice : c.choices()) {
            if (choice.contentDelta() != null && !choice.contentDelta().isEmpty()) {
                n += utf8Length(choice.contentDelta());
            }
        }
        return n;
    }

    private static int utf8Length(String s) {
        int ascii = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return s.getBytes(StandardCharsets.UTF_8).length;
            }
            ascii++;
        }
        return ascii;
    }
}
