package dev.sluice.runtime.it;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects what the server logs through {@code System.Logger} (backed by java.util.logging)
 * under {@code dev.sluice}, formatted with its thrown exception's messages. Close it in
 * {@code @AfterEach}.
 */
final class LogCapture extends Handler implements AutoCloseable {

    private static final java.util.logging.Formatter FORMAT = new java.util.logging.SimpleFormatter();

    private final Logger root = Logger.getLogger("dev.sluice");
    private final List<String> lines = new ArrayList<>();

    LogCapture() {
        root.addHandler(this);
    }

    @Override
    public synchronized void publish(LogRecord r) {
        // formatted as a handler would print it: {0}-style parameters filled in, so a secret passed
        // as a parameter shows up here too
        StringBuilder b = new StringBuilder(r.getLevel() + " " + r.getLoggerName() + ": " + FORMAT.formatMessage(r));
        for (Throwable t = r.getThrown(); t != null; t = t.getCause()) {
            b.append(" | ").append(t);
        }
        lines.add(b.toString());
    }

    /** @return everything logged so far, one record a line */
    synchronized String text() {
        return String.join("\n", lines);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        root.removeHandler(this);
    }
}
