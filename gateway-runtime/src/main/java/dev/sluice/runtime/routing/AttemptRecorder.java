package dev.sluice.runtime.routing;

import dev.sluice.runtime.store.ProxyLogRow;

/** Receives one row per upstream attempt (the {@code proxy_logs} writer in production). */
@FunctionalInterface
public interface AttemptRecorder {

    /**
     * Records an attempt; must not block.
     *
     * @param row the attempt
     */
    void record(ProxyLogRow row);
}
