package dev.sluice.runtime.telemetry;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A log file rotated by size: when a write would take it past {@code maxBytes}, {@code f} becomes
 * {@code f.1}, {@code f.1} becomes {@code f.2}, … and the oldest of {@code keep} is deleted. Used by
 * one writer thread only.
 */
final class RotatingFile implements AccessLog.Sink {

    /** The write buffer: a batch of lines goes to the file in a few system calls. */
    static final int BUFFER_BYTES = 64 * 1024;

    private final Path file;
    private final long maxBytes;
    private final int keep;
    private OutputStream out;
    private long size;

    RotatingFile(Path file, long maxBytes, int keep) throws IOException {
        this.file = file;
        this.maxBytes = maxBytes;
        this.keep = keep;
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        open();
    }

    private void open() throws IOException {
        // buffered: the writer thread writes a batch of lines, then flushes once (issue 26)
        out = new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                StandardOpenOption.WRITE), BUFFER_BYTES);
        size = Files.size(file);
    }

    @Override
    public void write(CharSequence line) throws IOException {
        byte[] bytes = line.toString().getBytes(StandardCharsets.UTF_8);
        if (size > 0 && size + bytes.length > maxBytes) {
            rotate();
        }
        out.write(bytes);
        size += bytes.length;
    }

    private void rotate() throws IOException {
        out.close();
        Files.deleteIfExists(sibling(keep));
        for (int i = keep - 1; i >= 1; i--) {
            Path from = sibling(i);
            if (Files.exists(from)) {
                Files.move(from, sibling(i + 1), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(file, sibling(1), StandardCopyOption.REPLACE_EXISTING);
        open();
    }

    private Path sibling(int n) {
        return file.resolveSibling(file.getFileName() + "." + n);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
