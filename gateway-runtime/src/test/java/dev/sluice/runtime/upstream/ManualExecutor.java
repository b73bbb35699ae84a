package dev.sluice.runtime.upstream;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/** An executor that queues tasks until the test runs them, on the test's thread. Not thread-safe. */
final class ManualExecutor extends AbstractExecutorService {

    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean shutdown;

    int pending() {
        return tasks.size();
    }

    void runAll() {
        for (Runnable r; (r = tasks.poll()) != null; ) {
            r.run();
        }
    }

    @Override
    public void execute(Runnable command) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        tasks.add(command);
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = List.copyOf(tasks);
        tasks.clear();
        return left;
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
