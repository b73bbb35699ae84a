package dev.sluice.plugin.gemini;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;

/** Creates the {@value #NAME} executor from the host's HTTP client, clock and logger. */
final class GeminiExecutorFactory implements ExecutorFactory {

    /** The executor name the provider descriptor refers to. */
    static final String NAME = "gemini";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProviderExecutor create(HostContext host) {
        return new GeminiExecutor(host.http(), host.clock(), Ids.random(), host.logger());
    }
}
