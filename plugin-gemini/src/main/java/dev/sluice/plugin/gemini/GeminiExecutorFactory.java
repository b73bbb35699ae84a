package dev.sluice.plugin.gemini;

import dev.sluice.api.ExecutorFactory;
import dev.sluice.api.HostContext;
import dev.sluice.api.ProviderExecutor;

/**
 * Creates the {@value #NAME} executor from the host's HTTP client, clock and logger; its Code
 * Assist mode reads {@code plugins.settings.gemini.upstreamBaseUrl} (issue 36) and stores the
 * projects it finds through the host's credential updates.
 */
final class GeminiExecutorFactory implements ExecutorFactory {

    /** The executor name the provider descriptor refers to. */
    static final String NAME = "gemini";
    /** Setting: the Code Assist endpoint (the same key the host reads for connections made by login). */
    static final String UPSTREAM_BASE_URL = "upstreamBaseUrl";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ProviderExecutor create(HostContext host) {
        String codeAssist = host.settings().get(UPSTREAM_BASE_URL).filter(s -> !s.isBlank()).map(String::strip)
                .orElse(CodeAssist.DEFAULT_BASE_URL);
        return new GeminiExecutor(host.http(), host.clock(), Ids.random(), host.logger(), codeAssist,
                new CodeAssistProjects(host.http(), host.credentialUpdates(), host.logger()));
    }
}
