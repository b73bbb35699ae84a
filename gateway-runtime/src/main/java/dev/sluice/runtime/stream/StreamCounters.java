package dev.sluice.runtime.stream;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How streams ended, counted by reason since start-up (SPEC §15; the operations issue exports
 * them as metrics): each committed stream's {@link StreamEnding}, plus the attempts that never
 * committed because the readiness gate timed out or the upstream ended early.
 */
public final class StreamCounters {

    private final Map<StreamEnding, AtomicLong> endings = new EnumMap<>(StreamEnding.class);
    private final AtomicLong readinessTimeouts = new AtomicLong();
    private final AtomicLong earlyEofs = new AtomicLong();

    /** Starts at zero. */
    public StreamCounters() {
        for (StreamEnding e : StreamEnding.values()) {
            endings.put(e, new AtomicLong());
        }
    }

    /** @param ending how a committed stream ended */
    public void ended(StreamEnding ending) {
        endings.get(ending).incrementAndGet();
    }

    /** An attempt's readiness gate timed out (ST-0). */
    public void readinessTimedOut() {
        readinessTimeouts.incrementAndGet();
    }

    /** An attempt's stream ended before its first useful event (ST-0). */
    public void endedEarly() {
        earlyEofs.incrementAndGet();
    }

    /** @return every counter by its name: {@code readiness_timeout}, {@code early_eof}, then each ending's */
    public Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("readiness_timeout", readinessTimeouts.get());
        out.put("early_eof", earlyEofs.get());
        endings.forEach((e, n) -> out.put(e.name().toLowerCase(java.util.Locale.ROOT), n.get()));
        return out;
    }
}
