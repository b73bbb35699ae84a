package dev.sluice.runtime.http;

import io.helidon.common.concurrency.limits.Limit;
import io.helidon.common.task.InterruptableTask;
import io.helidon.webserver.spi.ServerConnection;
import java.time.Duration;

/**
 * Helidon's HTTP/1 connection, counted among the open connections until it ends: Helidon has no
 * connection-ended callback, so the end of {@link #handle} is where the count goes down. The
 * interrupt answer is the delegate's (Helidon interrupts a connection only while it waits for a
 * request line).
 */
final class AdmittedConnection implements ServerConnection, InterruptableTask<Void> {

    /** A connection refused at the cap: its socket is already closed; handling it ends at once. */
    static final ServerConnection REFUSED = new AdmittedConnection(null, () -> { });

    private final ServerConnection delegate;
    private final Runnable ended;

    AdmittedConnection(ServerConnection delegate, Runnable ended) {
        this.delegate = delegate;
        this.ended = ended;
    }

    @Override
    public void handle(Limit limit) throws InterruptedException {
        if (delegate == null) {
            return;
        }
        try {
            delegate.handle(limit);
        } finally {
            ended.run();
        }
    }

    @Override
    public boolean canInterrupt() {
        return delegate instanceof InterruptableTask<?> task && task.canInterrupt();
    }

    @Override
    public Duration idleTime() {
        return delegate == null ? Duration.ZERO : delegate.idleTime();
    }

    @Override
    public void close(boolean interrupt) {
        if (delegate != null) {
            delegate.close(interrupt);
        }
    }
}
